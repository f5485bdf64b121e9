import Foundation

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
        String(decoding: try checkedBytes(value, identifier: identifier), as: UTF8.self)
    }

    /// ``checkedText(_:identifier:)`` as UTF-8 bytes (what the store binds and digests), without
    /// making a `String` of them.
    static func checkedBytes(_ value: JSON, identifier: String) throws(DocumentStoreError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        var nonFinite = false
        write(value, to: &out, nonFinite: &nonFinite)
        if nonFinite, let path = nonFinitePath(value, path: "$") {
            throw .invalidValue(identifier: identifier, path: path, reason: "JSON has no NaN or infinity")
        }
        return out
    }

    /// ``checkedBytes(_:identifier:)`` of the object whose fields are `fields` (keys unique), listed in
    /// the order a dictionary of them iterates (the order the path to a non-finite number is looked for
    /// in), without making that dictionary.
    static func checkedBytes(fields: UnsafeBufferPointer<(key: String, value: JSON)>,
                             identifier: String) throws(DocumentStoreError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        var nonFinite = false
        out.append(UInt8(ascii: "{"))
        withUnsafeTemporaryAllocation(of: Int.self, capacity: fields.count) { order in
            var order = order
            for index in fields.indices { (order.baseAddress! + index).initialize(to: index) }
            order.sort { fields[$0].key.utf8.lexicographicallyPrecedes(fields[$1].key.utf8) }
            for (position, index) in order.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                writeField(fields[index].key, fields[index].value, to: &out, nonFinite: &nonFinite)
            }
        }
        out.append(UInt8(ascii: "}"))
        if nonFinite {
            for field in fields {
                if let path = nonFinitePath(field.value, path: "$.\(field.key)") {
                    throw .invalidValue(identifier: identifier, path: path, reason: "JSON has no NaN or infinity")
                }
            }
        }
        return out
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
            if fields.count < 2 {
                for (key, item) in fields { writeField(key, item, to: &out, nonFinite: &nonFinite) }
            } else {
                // The fields themselves in key order (no lookup of each key again), sorted in a
                // temporary buffer (on the stack when small).
                withUnsafeTemporaryAllocation(of: (key: String, value: JSON).self, capacity: fields.count) { sorted in
                    var count = 0
                    for field in fields {
                        (sorted.baseAddress! + count).initialize(to: field)
                        count += 1
                    }
                    var sorted = UnsafeMutableBufferPointer(rebasing: sorted[..<count])
                    sorted.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                    for index in sorted.indices {
                        if index > 0 { out.append(UInt8(ascii: ",")) }
                        writeField(sorted[index].key, sorted[index].value, to: &out, nonFinite: &nonFinite)
                    }
                    sorted.deinitialize()
                }
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeField(_ key: String, _ value: JSON, to out: inout [UInt8], nonFinite: inout Bool) {
        writeString(key, to: &out)
        out.append(UInt8(ascii: ":"))
        write(value, to: &out, nonFinite: &nonFinite)
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
