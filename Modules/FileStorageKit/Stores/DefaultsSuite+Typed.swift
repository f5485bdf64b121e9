import Foundation
import PlistCodec

/// Typed getters and setters, converting between stored types as `UserDefaults` does, so ported
/// code reads the same values: a Bool reads as the string "1" or "0", "42abc" and " 42" read as the
/// integer 42, and a string is a true Bool when it starts with Y, y, T, t or a digit 1-9. The one
/// difference is where Foundation gives garbage: an integer from a real outside `Int`'s range is 0
/// here (Foundation gives `Int.min`). `DefaultsSuiteFoundationTests` compares every getter with
/// `Foundation.UserDefaults` on each kind of stored value.
extension DefaultsSuite {
    /// The string for `key`: a stored string; a number as its text; a Bool as "1" or "0".
    public func string(forKey key: String) -> String? {
        switch object(forKey: key) {
        case .string(let s): return s
        case .integer(let i): return i.description
        case .real(let d): return "\(d)"
        case .float(let f): return "\(f)"
        case .bool(let b): return b ? "1" : "0"
        default: return nil
        }
    }

    /// The integer for `key`, or 0. Reals are truncated toward zero (0 when out of range), `true` is
    /// 1, and a string gives the integer it starts with, after white space (`NSString.integerValue`).
    public func integer(forKey key: String) -> Int {
        switch object(forKey: key) {
        case .integer(let i): return Int(clamping: i.value)
        case .real(let d) where d.isFinite: return Int(exactly: d.rounded(.towardZero)) ?? 0
        case .float(let f) where f.isFinite: return Int(exactly: f.rounded(.towardZero)) ?? 0
        case .bool(let b): return b ? 1 : 0
        case .string(let s): return NSString(string: s).integerValue
        default: return 0
        }
    }

    /// The number for `key` as a `Double`, or 0. A string gives the number it starts with, after
    /// white space (`NSString.doubleValue`: "42abc" is 42, "1e3" is 1000).
    public func double(forKey key: String) -> Double {
        switch object(forKey: key) {
        case .integer(let i): return Double(i.value)
        case .real(let d): return d
        case .float(let f): return Double(f)
        case .bool(let b): return b ? 1 : 0
        case .string(let s): return NSString(string: s).doubleValue
        default: return 0
        }
    }

    /// The number for `key` as a `Float`, or 0; converted as `double(forKey:)` does.
    public func float(forKey key: String) -> Float {
        switch object(forKey: key) {
        case .float(let f): return f
        case .string(let s): return NSString(string: s).floatValue
        default: return Float(double(forKey: key))
        }
    }

    /// The Boolean for `key`, or `false`. Non-zero numbers are `true`; a string is `true` when, after
    /// white space, an optional sign and leading zeros, it starts with Y, y, T, t or a digit 1-9
    /// (`NSString.boolValue`: "yes", "TRUE", "1" and "9 lives" are true; "no", "0", "000" are not).
    public func bool(forKey key: String) -> Bool {
        switch object(forKey: key) {
        case .bool(let b): return b
        case .integer(let i): return i.value != 0
        case .real(let d): return d != 0
        case .float(let f): return f != 0
        case .string(let s): return NSString(string: s).boolValue
        default: return false
        }
    }

    /// The URL for `key`. A stored string is a file path, with `~` expanded and a relative path taken
    /// from the current folder, as Foundation reads it; a string this suite stored for a URL with a
    /// scheme (`https://...`) reads back as that URL.
    ///
    /// Foundation also reads a keyed archive of an `NSURL` stored as data; this suite does not (it
    /// returns `nil` for data), since `UserDefaults` on Linux crashes on it.
    public func url(forKey key: String) -> URL? {
        guard case .string(let s)? = object(forKey: key) else { return nil }
        if Self.hasScheme(s), let url = URL(string: s) { return url }
        return URL(fileURLWithPath: NSString(string: s).expandingTildeInPath)
    }

    /// Whether `text` starts with `scheme://`, which a file path never does.
    static func hasScheme(_ text: String) -> Bool {
        guard let colon = text.range(of: "://"), colon.lowerBound > text.startIndex else { return false }
        let scheme = text[..<colon.lowerBound]
        return scheme.first!.isLetter && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
    }

    /// What `set(_: URL?, forKey:)` stores: a file URL's path, any other URL's text.
    static func storedValue(for url: URL) -> PlistValue {
        .string(url.isFileURL ? url.path : url.absoluteString)
    }

    /// The data for `key`.
    public func data(forKey key: String) -> Data? {
        if case .data(let d)? = object(forKey: key) { return d }
        return nil
    }

    /// The date for `key`.
    public func date(forKey key: String) -> Date? {
        if case .date(let d)? = object(forKey: key) { return d }
        return nil
    }

    /// The array for `key`.
    public func array(forKey key: String) -> [PlistValue]? { object(forKey: key)?.arrayValue }

    /// The array for `key` if every element is a string.
    public func stringArray(forKey key: String) -> [String]? {
        guard let items = array(forKey: key) else { return nil }
        let strings = items.compactMap(\.stringValue)
        return strings.count == items.count ? strings : nil
    }

    /// The dictionary for `key`.
    public func dictionary(forKey key: String) -> PlistDictionary? { object(forKey: key)?.dictionaryValue }

    /// Decodes the value for `key` as `T`; `nil` when the key has no value.
    ///
    /// - Throws: `FileStorageError.decodingFailed` when the value is not a `T`.
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        guard let value = object(forKey: key) else { return nil }
        do {
            return try PlistDecoder().decode(type, from: value)
        } catch {
            throw FileStorageError.decodingFailed(url, "key \(key): \(error)")
        }
    }

    /// Stores a Codable value for `key`, encoded as property-list values (not as a data blob).
    ///
    /// ```swift
    /// struct Window: Codable { var width, height: Int }
    /// try suite.set(encoding: Window(width: 800, height: 600), forKey: "window")
    /// let window = try suite.value(Window.self, forKey: "window")
    /// ```
    ///
    /// - Throws: `FileStorageError.encodingFailed` naming the key when `value` does not encode, or a
    ///   write's `FileStorageError` as ``update(forKey:_:)``.
    public func set<T: Encodable>(encoding value: T, forKey key: String) throws {
        try set(try encodedValue(value, forKey: key), forKey: key)
    }

    /// `value` encoded as property-list values, or `.encodingFailed` naming the suite and the key.
    func encodedValue<T: Encodable>(_ value: T, forKey key: String) throws -> PlistValue {
        do {
            return try PlistEncoder().encodeToValue(value)
        } catch {
            throw FileStorageError.encodingFailed(url, "key \(key): \(error)")
        }
    }

    /// Stores a Boolean.
    /// - Throws: `FileStorageError`, as ``update(forKey:_:)``.
    public func set(_ value: Bool, forKey key: String) throws { try set(.bool(value), forKey: key) }
    /// Stores an integer.
    /// - Throws: `FileStorageError`, as ``update(forKey:_:)``.
    public func set(_ value: Int, forKey key: String) throws { try set(.int(value), forKey: key) }
    /// Stores a real.
    /// - Throws: `FileStorageError`, as ``update(forKey:_:)``.
    public func set(_ value: Double, forKey key: String) throws { try set(.real(value), forKey: key) }
    /// Stores a 32-bit real (kept as one: a binary file holds it exactly).
    /// - Throws: `FileStorageError`, as ``update(forKey:_:)``.
    public func set(_ value: Float, forKey key: String) throws { try set(.float(value), forKey: key) }
    /// Stores a URL: a file URL as its path (as `UserDefaults` does), any other URL as its text;
    /// `nil` removes the key.
    ///
    /// - Throws: `FileStorageError`, as ``update(forKey:_:)``.
    // Disfavoured, so `set(nil, forKey:)` still means "remove" without naming a type.
    @_disfavoredOverload
    public func set(_ value: URL?, forKey key: String) throws { try set(value.map(Self.storedValue(for:)), forKey: key) }
    /// Stores a string.
    /// - Throws: `FileStorageError`, as ``update(forKey:_:)``.
    public func set(_ value: String, forKey key: String) throws { try set(.string(value), forKey: key) }
    /// Stores data.
    /// - Throws: `FileStorageError`, as ``update(forKey:_:)``.
    public func set(_ value: Data, forKey key: String) throws { try set(.data(value), forKey: key) }
    /// Stores a date.
    /// - Throws: `FileStorageError`, as ``update(forKey:_:)``.
    public func set(_ value: Date, forKey key: String) throws { try set(.date(value), forKey: key) }
    /// Stores an array of strings.
    /// - Throws: `FileStorageError`, as ``update(forKey:_:)``.
    public func set(_ value: [String], forKey key: String) throws { try set(.array(value.map(PlistValue.string)), forKey: key) }

    /// Atomically adds `amount` to the integer for `key` (missing counts as 0) and returns the new value.
    ///
    /// ```swift
    /// let launches = try suite.increment("launches")   // no launch is lost to another process
    /// ```
    ///
    /// - Throws: `FileStorageError`, as ``update(forKey:_:)``.
    @discardableResult
    public func increment(_ key: String, by amount: Int = 1) throws -> Int {
        try update(forKey: key) { value in
            let next = (value?.intValue ?? 0) + amount
            value = .int(next)
            return next
        }
    }
}
