import Foundation

/// A JSON value: what a document's body is made of.
///
/// Numbers keep the difference JSON text makes: `3` is an ``integer(_:)`` and `3.0` a ``double(_:)``,
/// as SQLite's JSON functions see them (an `INTEGER` and a `REAL`). Literals build values directly:
///
/// ```swift
/// let json: JSON = ["side": 3.0, "tags": ["red", "big"], "owner": nil]
/// let side: Double? = "side" <~~ json
/// ```
public enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// The value under `key` when this is an object; `nil` otherwise or when there is none.
    public subscript(key: String) -> JSON? {
        guard case .object(let fields) = self else { return nil }
        return fields[key]
    }

    /// The value at `index` when this is an array and the index is in range.
    public subscript(index: Int) -> JSON? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    /// The value at a dotted path (`"address.city"`), following objects; the whole key is tried first,
    /// so a key that contains a dot still works.
    public func value(atPath path: String) -> JSON? {
        if let direct = self[path] { return direct }
        guard path.contains(".") else { return nil }
        var current: JSON? = self
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            current = current?[String(component)]
        }
        return current
    }

    /// The fields when this is an object.
    public var objectValue: [String: JSON]? {
        if case .object(let fields) = self { return fields }
        return nil
    }

    /// The canonical text (sorted keys, one number format): what the store keeps and digests.
    public var canonicalText: String { CanonicalJSON.text(self) }

    /// Parses JSON text (RFC 8259; numbers without a fraction or exponent that fit `Int64` are integers).
    ///
    /// - Throws: ``DocumentStoreError/malformedJSON(identifier:offset:reason:)`` with the byte offset.
    public init(parsing text: String, identifier: String? = nil) throws(DocumentStoreError) {
        self = try JSONParser.parse(text, identifier: identifier)
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
                ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
                ExpressibleByDictionaryLiteral {
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSON: CustomStringConvertible {
    public var description: String { canonicalText }
}

/// The canonical text of a JSON value.
///
/// Object keys are sorted by their UTF-8 bytes; strings escape `"`, `\` and control characters (as
/// `\n`, `\t`, `\r`, `\b`, `\f` or `\u00XX`) and keep everything else as UTF-8; integers are decimal;
/// doubles use Swift's shortest round-trip form, which always has a `.` or an exponent, so SQLite
/// reads them back as `REAL`. No spaces. Two equal values always give the same bytes.
enum CanonicalJSON {
    static func text(_ value: JSON) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        var nonFinite = false
        write(value, to: &out, nonFinite: &nonFinite)
        return String(decoding: out, as: UTF8.self)
    }

    /// The canonical text, refusing what JSON cannot hold (NaN and the infinities) with the path to it.
    static func checkedText(_ value: JSON, identifier: String) throws(DocumentStoreError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        var nonFinite = false
        write(value, to: &out, nonFinite: &nonFinite)
        if nonFinite, let path = nonFinitePath(value, path: "$") {
            throw .invalidValue(identifier: identifier, path: path, reason: "JSON has no NaN or infinity")
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func nonFinitePath(_ value: JSON, path: String) -> String? {
        switch value {
        case .double(let v): return v.isFinite ? nil : path
        case .array(let items):
            for (index, item) in items.enumerated() {
                if let found = nonFinitePath(item, path: "\(path)[\(index)]") { return found }
            }
            return nil
        case .object(let fields):
            for (key, item) in fields {
                if let found = nonFinitePath(item, path: "\(path).\(key)") { return found }
            }
            return nil
        default: return nil
        }
    }

    /// Appends `value`'s canonical text; sets `nonFinite` when a double is NaN or infinite (written as
    /// Swift spells it, which is not JSON: callers that store text refuse it).
    static func write(_ value: JSON, to out: inout [UInt8], nonFinite: inout Bool) {
        switch value {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(true): out.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
        case .bool(false): out.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
        case .integer(let v): writeInteger(v, to: &out)
        case .double(let v):
            if !v.isFinite { nonFinite = true }
            out.append(contentsOf: v.description.utf8)
        case .string(let s): writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(item, to: &out, nonFinite: &nonFinite)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            var first = true
            for key in sortedKeys(fields) {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                write(fields[key]!, to: &out, nonFinite: &nonFinite)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Keys in UTF-8 byte order (the same order on every platform and in every process).
    static func sortedKeys(_ fields: [String: JSON]) -> [String] {
        if fields.count < 2 { return Array(fields.keys) }
        return fields.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    private static func writeInteger(_ value: Int64, to out: inout [UInt8]) {
        if value >= 0 && value < 10 {
            out.append(UInt8(ascii: "0") + UInt8(value))
        } else {
            out.append(contentsOf: String(value).utf8)
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var start = 0
            for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                out.append(contentsOf: bytes[start..<index])
                start = index + 1
                out.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x22: out.append(0x22)
                case 0x5C: out.append(0x5C)
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                default:
                    out.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                            hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                }
            }
            out.append(contentsOf: bytes[start...])
        }
        out.append(UInt8(ascii: "\""))
    }
}
