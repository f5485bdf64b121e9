import Foundation

/// The formats property lists come in.
///
/// ```swift
/// if PlistFormat.detect(data) == .binary { print("bplist00") }
/// let xml = try PlistValue(parsing: data).serialized(as: .xml)
/// ```
public enum PlistFormat: String, Hashable, Sendable, CaseIterable {
    /// `<?xml ...><plist version="1.0">`: readable and writable.
    case xml
    /// `bplist00`: readable and writable.
    case binary
    /// Old-style NeXT/OpenStep text (`{ key = value; }`): readable only, as on Apple platforms.
    case openStep

    /// Guesses the format of `data` from its first bytes.
    ///
    /// `bplist` starts a binary file; `<?xml`, `<!DOCTYPE`, `<plist` or a root element such as
    /// `<dict>` (after optional whitespace and a UTF-8 byte-order mark), or a UTF-16 byte-order mark,
    /// starts an XML file; anything else is read as OpenStep text (`<0fbd77>` there is data).
    public static func detect(_ data: Data) -> PlistFormat {
        if data.starts(with: Array("bplist".utf8)) { return .binary }
        if data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE]) {
            // UTF-16 text (XML, or an OpenStep strings file): look at its first characters as UTF-8.
            let bigEndian = data.first == 0xFE
            let prefix = data.dropFirst(2).prefix(512)
            let units = stride(from: prefix.startIndex, to: prefix.endIndex - 1, by: 2).map { i -> UInt16 in
                let a = UInt16(prefix[i]), b = UInt16(prefix[i + 1])
                return bigEndian ? a << 8 | b : b << 8 | a
            }
            let text = String(decoding: units, as: UTF16.self)
            return detect(Data(text.utf8)) == .xml ? .xml : .openStep
        }
        var bytes = data.prefix(512)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        bytes = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard bytes.first == UInt8(ascii: "<"), let next = bytes.dropFirst().first else { return .openStep }
        if next == UInt8(ascii: "?") || next == UInt8(ascii: "!") { return .xml }
        // An element name, not hex digits: `<dict>`, `<array/>`, `<plist version=...>`.
        let name = bytes.dropFirst().prefix { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
        let elements = ["plist", "dict", "array", "string", "integer", "real", "true", "false", "date", "data"]
        guard let after = bytes.dropFirst(1 + name.count).first,
              after == UInt8(ascii: ">") || after == UInt8(ascii: "/") || after == 0x20 else { return .openStep }
        return elements.contains(String(decoding: name, as: UTF8.self)) ? .xml : .openStep
    }
}
