import Foundation

/// A value that can be stored in a document: what `save(_:json:)` takes as field values.
///
/// Booleans, integers, floating-point numbers, strings, `JSON` itself, optionals (`nil` stores
/// `null`), arrays and string-keyed dictionaries of these, `Date` (ISO 8601 text with milliseconds),
/// `URL` (its absolute string) and `UUID` (its string) conform.
///
/// Conform a type of your own to store it as a field value:
///
/// ```swift
/// enum Color: String { case red, blue }
/// extension Color: JSONRepresentable {
///     var jsonValue: JSON { .string(rawValue) }
/// }
/// try to.save(self, json: ["color": color])
/// ```
public protocol JSONRepresentable {
    /// The value as JSON.
    var jsonValue: JSON { get }
}

/// A value that can be read from a document field with `<~~`.
///
/// ```swift
/// extension Color: JSONDecodable {
///     init?(json: JSON) {
///         guard case .string(let name) = json else { return nil }
///         self.init(rawValue: name)
///     }
/// }
/// let color: Color? = "color" <~~ json
/// ```
public protocol JSONDecodable {
    /// The value for `json`, or `nil` when `json` holds something else.
    init?(json: JSON)
}

precedencegroup JSONDecodingPrecedence {
    associativity: left
    higherThan: NilCoalescingPrecedence
}

infix operator <~~ : JSONDecodingPrecedence

/// The value of the field `key` in `json` (a dotted key reaches into nested objects), or `nil` when it
/// is missing, `null`, or of another type: Gloss's decoding operator.
///
/// ```swift
/// guard let side: Double = "side" <~~ json else { return nil }
/// ```
public func <~~ <T: JSONDecodable>(key: String, json: JSON) -> T? {
    guard let value = json.value(atPath: key), value != .null else { return nil }
    return T(json: value)
}

extension JSON: JSONRepresentable, JSONDecodable {
    public var jsonValue: JSON { self }
    public init?(json: JSON) { self = json }
}

extension Bool: JSONRepresentable, JSONDecodable {
    public var jsonValue: JSON { .bool(self) }
    public init?(json: JSON) {
        guard case .bool(let value) = json else { return nil }
        self = value
    }
}

extension String: JSONRepresentable, JSONDecodable {
    public var jsonValue: JSON { .string(self) }
    public init?(json: JSON) {
        guard case .string(let value) = json else { return nil }
        self = value
    }
}

extension Double: JSONRepresentable, JSONDecodable {
    public var jsonValue: JSON { .double(self) }
    /// Reads an integer or a double field (`3` and `3.0` both give 3.0).
    public init?(json: JSON) {
        switch json {
        case .double(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension Float: JSONRepresentable, JSONDecodable {
    public var jsonValue: JSON { .double(Double(self)) }
    public init?(json: JSON) {
        guard let value = Double(json: json) else { return nil }
        self = Float(value)
    }
}

/// Integers are stored as JSON integers; reading one accepts an integer, or a double with no fraction,
/// that fits the type.
public protocol JSONInteger: FixedWidthInteger, JSONRepresentable, JSONDecodable {}

extension JSONInteger {
    public var jsonValue: JSON {
        if let value = Int64(exactly: self) { return .integer(value) }
        return .double(Double(self))
    }

    public init?(json: JSON) {
        switch json {
        case .integer(let value):
            guard let exact = Self(exactly: value) else { return nil }
            self = exact
        case .double(let value):
            guard let exact = Self(exactly: value) else { return nil }
            self = exact
        default:
            return nil
        }
    }
}

extension Int: JSONInteger {}
extension Int8: JSONInteger {}
extension Int16: JSONInteger {}
extension Int32: JSONInteger {}
extension Int64: JSONInteger {}
extension UInt: JSONInteger {}
extension UInt8: JSONInteger {}
extension UInt16: JSONInteger {}
extension UInt32: JSONInteger {}
extension UInt64: JSONInteger {}

extension Optional: JSONRepresentable where Wrapped: JSONRepresentable {
    public var jsonValue: JSON { self?.jsonValue ?? .null }
}

extension Array: JSONRepresentable where Element: JSONRepresentable {
    public var jsonValue: JSON { .array(map(\.jsonValue)) }
}

extension Array: JSONDecodable where Element: JSONDecodable {
    /// An array whose every element converts; `nil` if one does not.
    public init?(json: JSON) {
        guard case .array(let items) = json else { return nil }
        var result: [Element] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard let element = Element(json: item) else { return nil }
            result.append(element)
        }
        self = result
    }
}

extension Dictionary: JSONRepresentable where Key == String, Value: JSONRepresentable {
    public var jsonValue: JSON { .object(mapValues(\.jsonValue)) }
}

extension Dictionary: JSONDecodable where Key == String, Value: JSONDecodable {
    public init?(json: JSON) {
        guard case .object(let fields) = json else { return nil }
        var result: [String: Value] = [:]
        for (key, item) in fields {
            guard let value = Value(json: item) else { return nil }
            result[key] = value
        }
        self = result
    }
}

extension Date: JSONRepresentable, JSONDecodable {
    public var jsonValue: JSON {
        .string(formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }

    /// Reads ISO 8601 text, with or without fractional seconds.
    public init?(json: JSON) {
        guard case .string(let text) = json else { return nil }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
            self = date
        } else if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) {
            self = date
        } else {
            return nil
        }
    }
}

extension URL: JSONRepresentable, JSONDecodable {
    public var jsonValue: JSON { .string(absoluteString) }
    public init?(json: JSON) {
        guard case .string(let text) = json, let url = URL(string: text) else { return nil }
        self = url
    }
}

extension UUID: JSONRepresentable, JSONDecodable {
    public var jsonValue: JSON { .string(uuidString) }
    public init?(json: JSON) {
        guard case .string(let text) = json, let uuid = UUID(uuidString: text) else { return nil }
        self = uuid
    }
}
