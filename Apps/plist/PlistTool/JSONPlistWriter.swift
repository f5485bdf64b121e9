import Foundation
import PlistCodec

/// A value a destination format cannot hold (a date or data in JSON, say): plutil's refusal.
struct InvalidObjectError: Error, Equatable, CustomStringConvertible {
    var description: String { "invalid object in plist for destination format" }
}

/// Writes property-list values as JSON the way `plutil -convert json` does (NSJSONSerialization).
///
/// Compact by default (`{"a":1,"b":[true]}`); readable with two-space indentation and `" : "` after
/// keys. Keys sorted, `/` escaped as `\/`, whole reals without a fraction. Dates, data, UIDs and
/// non-finite reals have no JSON form: they throw `InvalidObjectError`, as does a top-level scalar
/// unless `fragments` allows it (`-extract ... json` does).
struct JSONPlistWriter {
    var readable: Bool
    var fragments: Bool

    func write(_ value: PlistValue) throws -> Data {
        switch value {
        case .dictionary, .array: break
        default: guard fragments else { throw InvalidObjectError() }
        }
        var out = ""
        try write(value, indent: 0, into: &out)
        out.append("\n")
        return Data(out.utf8)
    }

    private func write(_ value: PlistValue, indent: Int, into out: inout String) throws {
        let pad = readable ? String(repeating: "  ", count: indent + 1) : ""
        let closePad = readable ? String(repeating: "  ", count: indent) : ""
        let newline = readable ? "\n" : ""
        switch value {
        case .dictionary(let dictionary):
            if dictionary.isEmpty { out.append("{}"); return }
            out.append("{" + newline)
            for (i, entry) in dictionary.sortedForOutput().enumerated() {
                if i > 0 { out.append("," + newline) }
                out.append(pad + Self.quoted(entry.key) + (readable ? " : " : ":"))
                try write(entry.value, indent: indent + 1, into: &out)
            }
            out.append(newline + closePad + "}")
        case .array(let items):
            if items.isEmpty { out.append("[]"); return }
            out.append("[" + newline)
            for (i, item) in items.enumerated() {
                if i > 0 { out.append("," + newline) }
                out.append(pad)
                try write(item, indent: indent + 1, into: &out)
            }
            out.append(newline + closePad + "]")
        case .string(let string): out.append(Self.quoted(string))
        case .integer(let integer): out.append(integer.description)
        case .real(let double):
            guard double.isFinite else { throw InvalidObjectError() }
            out.append(PlistText.number(double))
        case .float(let float):
            guard float.isFinite else { throw InvalidObjectError() }
            out.append(PlistText.number(Double(float)))
        case .bool(let bool): out.append(bool ? "true" : "false")
        case .date, .data, .uid: throw InvalidObjectError()
        }
    }

    /// `string` as a JSON string literal.
    static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "/": out.append("\\/")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case "\u{08}": out.append("\\b")
            case "\u{0C}": out.append("\\f")
            default:
                if scalar.value < 0x20 {
                    out.append(String(format: "\\u%04x", scalar.value))
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
