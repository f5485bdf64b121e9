import Foundation
import PlistCodec

/// Typed getters and setters, converting as `UserDefaults` does where the conversion is lossless.
extension DefaultsSuite {
    /// The string for `key`; numbers are given as their text.
    public func string(forKey key: String) -> String? {
        switch object(forKey: key) {
        case .string(let s): return s
        case .integer(let i): return i.description
        case .real(let d): return "\(d)"
        default: return nil
        }
    }

    /// The integer for `key`, or 0. Reals are truncated, `true` is 1, numeric strings are parsed.
    public func integer(forKey key: String) -> Int {
        switch object(forKey: key) {
        case .integer(let i): return Int(clamping: i.value)
        case .real(let d) where d.isFinite: return Int(exactly: d.rounded(.towardZero)) ?? 0
        case .float(let f) where f.isFinite: return Int(exactly: f.rounded(.towardZero)) ?? 0
        case .bool(let b): return b ? 1 : 0
        case .string(let s): return Int(s) ?? Double(s).flatMap { Int(exactly: $0.rounded(.towardZero)) } ?? 0
        default: return 0
        }
    }

    /// The number for `key` as a `Double`, or 0.
    public func double(forKey key: String) -> Double {
        switch object(forKey: key) {
        case .string(let s): return Double(s) ?? 0
        case .bool(let b): return b ? 1 : 0
        case let v?: return v.doubleValue ?? 0
        case nil: return 0
        }
    }

    /// The Boolean for `key`, or `false`. Non-zero numbers and the strings `YES`, `true`, `1` are `true`.
    public func bool(forKey key: String) -> Bool {
        switch object(forKey: key) {
        case .bool(let b): return b
        case .integer(let i): return i.value != 0
        case .real(let d): return d != 0
        case .string(let s): return ["yes", "true", "1"].contains(s.lowercased())
        default: return false
        }
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
    public func set<T: Encodable>(encoding value: T, forKey key: String) throws {
        let encoded: PlistValue
        do {
            encoded = try PlistEncoder().encodeToValue(value)
        } catch {
            throw FileStorageError.encodingFailed(url, "key \(key): \(error)")
        }
        try set(encoded, forKey: key)
    }

    /// Stores a Boolean.
    public func set(_ value: Bool, forKey key: String) throws { try set(.bool(value), forKey: key) }
    /// Stores an integer.
    public func set(_ value: Int, forKey key: String) throws { try set(.int(value), forKey: key) }
    /// Stores a real.
    public func set(_ value: Double, forKey key: String) throws { try set(.real(value), forKey: key) }
    /// Stores a string.
    public func set(_ value: String, forKey key: String) throws { try set(.string(value), forKey: key) }
    /// Stores data.
    public func set(_ value: Data, forKey key: String) throws { try set(.data(value), forKey: key) }
    /// Stores a date.
    public func set(_ value: Date, forKey key: String) throws { try set(.date(value), forKey: key) }
    /// Stores an array of strings.
    public func set(_ value: [String], forKey key: String) throws { try set(.array(value.map(PlistValue.string)), forKey: key) }

    /// Atomically adds `amount` to the integer for `key` (missing counts as 0) and returns the new value.
    @discardableResult
    public func increment(_ key: String, by amount: Int = 1) throws -> Int {
        try update(forKey: key) { value in
            let next = (value?.intValue ?? 0) + amount
            value = .int(next)
            return next
        }
    }
}
