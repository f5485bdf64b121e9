import Foundation
import PlistCodec

extension PlistValue {
    /// The `-p` rendering: plutil's human-readable print.
    ///
    /// Dictionaries print as `{` ... `}` with `"key" => value` lines in key order, arrays as `[` ...
    /// `]` with `index => value` lines, two spaces per level; strings in double quotes, dates as
    /// `2004-10-26 10:33:33 +0000`, data as CoreFoundation describes it
    /// (`{length = 4, bytes = 0x01020304}`), Booleans as `true` and `false`. Ends with a newline.
    func humanReadable() -> String {
        var out = ""
        printHumanReadable(into: &out, indent: 0)
        out.append("\n")
        return out
    }

    private func printHumanReadable(into out: inout String, indent: Int) {
        let pad = String(repeating: "  ", count: indent + 1)
        let closePad = String(repeating: "  ", count: indent)
        switch self {
        case .dictionary(let dictionary):
            out.append("{\n")
            for (key, value) in dictionary.sortedForOutput() {
                out.append("\(pad)\"\(key)\" => ")
                value.printHumanReadable(into: &out, indent: indent + 1)
                out.append("\n")
            }
            out.append("\(closePad)}")
        case .array(let items):
            out.append("[\n")
            for (index, value) in items.enumerated() {
                out.append("\(pad)\(index) => ")
                value.printHumanReadable(into: &out, indent: indent + 1)
                out.append("\n")
            }
            out.append("\(closePad)]")
        case .string(let string): out.append("\"\(string)\"")
        case .integer(let integer): out.append(integer.description)
        case .real(let double): out.append(PlistText.number(double))
        case .float(let float): out.append(PlistText.number(Double(float)))
        case .bool(let bool): out.append(bool ? "true" : "false")
        case .date(let date): out.append(PlistText.humanDate(date))
        case .data(let data): out.append(PlistText.dataDescription(data))
        case .uid(let uid): out.append("<CFKeyedArchiverUID>{value = \(uid)}")
        }
    }
}

extension PlistDictionary {
    /// The entries in the order CoreFoundation sorts keys (UTF-16 code units), as plutil prints them.
    func sortedForOutput() -> [(key: String, value: PlistValue)] {
        indices.sorted { self[$0].key.utf16.lexicographicallyPrecedes(self[$1].key.utf16) }.map { self[$0] }
    }
}

/// Text renderings shared by `-p`, `-extract raw` and the JSON and source-code writers.
enum PlistText {
    /// A real as NSNumber prints it: shortest round-trip digits, no `.0` on whole numbers.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value > 0 ? "inf" : "-inf" }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    private static func utcFormatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.dateFormat = format
        return formatter
    }

    /// `2004-10-26 10:33:33 +0000`, as `-p` prints dates.
    static func humanDate(_ date: Date) -> String {
        utcFormatter("yyyy-MM-dd HH:mm:ss '+0000'").string(from: date)
    }

    /// `2004-10-26T10:33:33Z`, RFC 3339 in UTC, as `-extract raw` prints dates.
    static func rfc3339(_ date: Date) -> String {
        utcFormatter("yyyy-MM-dd'T'HH:mm:ss'Z'").string(from: date)
    }

    /// Parses an ISO 8601 date (`2024-01-02T03:04:05Z`, or with a `+hh:mm` offset or fraction).
    static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// CFData's description: every byte in hex up to 24 bytes; beyond that the first 16 and the last
    /// 8, in groups of four, around ` ... `.
    static func dataDescription(_ data: Data) -> String {
        let bytes = [UInt8](data)
        func hex(_ slice: ArraySlice<UInt8>, grouped: Bool) -> String {
            var text = ""
            for (i, byte) in slice.enumerated() {
                if grouped, i > 0, i % 4 == 0 { text.append(" ") }
                text.append(String(format: "%02x", byte))
            }
            return text
        }
        if bytes.count <= 24 {
            return "{length = \(bytes.count), bytes = 0x\(hex(bytes[...], grouped: false))}"
        }
        return "{length = \(bytes.count), bytes = 0x\(hex(bytes.prefix(16), grouped: true)) ... \(hex(bytes.suffix(8), grouped: true)) }"
    }
}
