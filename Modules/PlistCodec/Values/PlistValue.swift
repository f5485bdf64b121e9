import Foundation

/// A property-list value that keeps everything a property-list file can say.
///
/// Unlike `Any`-based APIs, nothing is lost between reading and writing: dictionaries keep their
/// order, a 16-byte integer stays 16 bytes, a 4-byte float stays a `Float`, and keyed-archive UIDs
/// survive.
///
/// ```swift
/// let value = try PlistValue(parsing: Data(contentsOf: url))
/// let xml = try value.serialized(as: .xml)
/// ```
public enum PlistValue: Hashable, Sendable {
    /// A `<string>`: ASCII or UTF-16 in binary files.
    case string(String)
    /// An `<integer>`, with the width it had in a binary file.
    case integer(PlistInteger)
    /// A `<real>` held as a 64-bit float.
    case real(Double)
    /// A `<real>` that a binary file held as a 32-bit float (XML cannot keep this distinction).
    case float(Float)
    /// `<true/>` or `<false/>`.
    case bool(Bool)
    /// A `<date>`: seconds since 2001-01-01T00:00:00Z.
    case date(Date)
    /// A `<data>` blob.
    case data(Data)
    /// An `<array>`.
    case array([PlistValue])
    /// A `<dict>`, in file order.
    case dictionary(PlistDictionary)
    /// A keyed-archive UID (`8n` marker in binary files; a `CF$UID` dictionary in XML).
    case uid(UInt64)
}

extension PlistValue {
    /// A signed integer value.
    public static func int(_ value: Int) -> PlistValue { .integer(PlistInteger(value)) }

    /// The string, if this is a `.string`.
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    /// The integer as `Int`, if this is an `.integer` that fits.
    public var intValue: Int? { if case .integer(let i) = self { return Int(exactly: i.value) } else { return nil } }
    /// The number as `Double`, if this is an `.integer`, `.real` or `.float`.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): return Double(i.value)
        case .real(let d): return d
        case .float(let f): return Double(f)
        default: return nil
        }
    }
    /// The Boolean, if this is a `.bool`.
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    /// The elements, if this is an `.array`.
    public var arrayValue: [PlistValue]? { if case .array(let a) = self { return a } else { return nil } }
    /// The dictionary, if this is a `.dictionary`.
    public var dictionaryValue: PlistDictionary? { if case .dictionary(let d) = self { return d } else { return nil } }

    /// The name of this value's kind as property-list files spell it (`string`, `integer`, `dict`, ...).
    public var kindName: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .real, .float: return "real"
        case .bool: return "bool"
        case .date: return "date"
        case .data: return "data"
        case .array: return "array"
        case .dictionary: return "dict"
        case .uid: return "UID"
        }
    }
}

/// An integer as a property list holds it: up to 128 bits, and whether it was stored in 16 bytes.
///
/// Binary property lists store unsigned 64-bit values (and anything beyond `Int64`) in 16 bytes;
/// `isWide` records that so a rewrite gives the same bytes.
public struct PlistInteger: Hashable, Sendable, CustomStringConvertible {
    /// The value.
    public var value: Int128
    /// Whether the value is (or was read as) a 16-byte integer.
    public var isWide: Bool

    /// Creates an integer; values outside `Int64` are always wide.
    public init(_ value: Int128, isWide: Bool = false) {
        self.value = value
        self.isWide = isWide || value > Int128(Int64.max) || value < Int128(Int64.min)
    }

    /// Creates an integer from any fixed-width integer. `UInt64` and `UInt` are wide, as
    /// `PropertyListEncoder` writes them.
    public init<T: FixedWidthInteger>(_ value: T) {
        self.init(Int128(value), isWide: !T.isSigned && T.bitWidth >= 64)
    }

    public var description: String { value.description }
}

extension PlistValue: CustomStringConvertible {
    /// A compact, single-line rendering for diagnostics.
    public var description: String {
        switch self {
        case .string(let s): return "\"\(s)\""
        case .integer(let i): return i.description
        case .real(let d): return "\(d)"
        case .float(let f): return "\(f)f"
        case .bool(let b): return b ? "true" : "false"
        case .date(let d): return "@\(d.timeIntervalSinceReferenceDate)"
        case .data(let d): return "<\(d.count) bytes>"
        case .array(let a): return "[" + a.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(let d):
            return "{" + d.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
        case .uid(let u): return "UID(\(u))"
        }
    }
}
