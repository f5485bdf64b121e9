import Foundation

/// The element names a property list uses, packed little-endian into a `UInt64` for one compare.
enum XMLPlistTag {
    static let plist: UInt64 = 0x74_73_69_6c_70
    static let array: UInt64 = 0x79_61_72_72_61
    static let dict: UInt64 = 0x74_63_69_64
    static let key: UInt64 = 0x79_65_6b
    static let string: UInt64 = 0x67_6e_69_72_74_73
    static let data: UInt64 = 0x61_74_61_64
    static let date: UInt64 = 0x65_74_61_64
    static let real: UInt64 = 0x6c_61_65_72
    static let integer: UInt64 = 0x72_65_67_65_74_6e_69
    static let `true`: UInt64 = 0x65_75_72_74
    static let `false`: UInt64 = 0x65_73_6c_61_66
}

/// The token level of XML property-list reading: the bytes, a position, and the readers of tags,
/// text and scalar contents. It knows nothing of nesting; `XMLPlistScanner` keeps the structure and
/// hands values to a sink.
///
/// Every error is a `PlistError` located with `.line(l, column: c)`, computed from the byte offset
/// only when it is thrown (see `TextCursor`).
struct XMLPlistLexer {
    let text: UnsafeBufferPointer<UInt8>
    let p: UnsafePointer<UInt8>
    let count: Int
    let options: PlistReadOptions
    var pos = 0
    /// Reused by strings that need entity or CDATA decoding.
    var scratch: [UInt8] = []

    init(text: UnsafeBufferPointer<UInt8>, base: UnsafePointer<UInt8>, options: PlistReadOptions) {
        self.text = text
        self.p = base
        self.count = text.count
        self.options = options
    }

    func error(_ kind: PlistError.Kind, _ message: String, at offset: Int) -> PlistError {
        PlistError(kind, "XML property list: " + message, at: TextCursor.location(of: offset, in: text))
    }
}

extension XMLPlistLexer {
    typealias Tag = XMLPlistTag

    @inline(__always) static func isNameByte(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
            || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: ":")
    }

    @inline(__always) static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D
    }

    @inline(__always) static func pack(_ q: UnsafePointer<UInt8>, _ length: Int) -> UInt64 {
        var v: UInt64 = 0
        var i = 0
        while i < length { v |= UInt64(q[i]) << (8 * UInt64(i)); i += 1 }
        return v
    }

    @inline(__always) mutating func skipWhitespace() {
        while pos < count, Self.isSpace(p[pos]) { pos += 1 }
    }

    func startsWith(_ s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard pos + n <= count else { return false }
        return memcmp(p + pos, s.utf8Start, n) == 0
    }

    /// Skips `<!-- ... -->` starting at `pos`.
    mutating func skipComment() throws {
        let start = pos
        var i = pos + 4
        while i + 2 < count {
            if p[i] == UInt8(ascii: "-"), p[i + 1] == UInt8(ascii: "-"), p[i + 2] == UInt8(ascii: ">") {
                pos = i + 3
                return
            }
            i += 1
        }
        throw error(.truncated, "unterminated comment <!--", at: start)
    }

    /// Reads `<name attr="..." ...>` or `<name .../>` at `pos` (which is `<`), leaving `pos` after it.
    /// Attributes are skipped, as Apple's parser skips them.
    mutating func readOpenTag() throws -> (name: UInt64, length: Int, selfClosing: Bool) {
        let start = pos
        var i = pos + 1
        while i < count, Self.isNameByte(p[i]) { i += 1 }
        let length = i - start - 1
        guard length > 0 else { throw error(.malformed, "expected an element name after '<'", at: start) }
        let name = length <= 8 ? Self.pack(p + start + 1, length) : 0
        // Fast path: `<name>`.
        if i < count, p[i] == UInt8(ascii: ">") {
            pos = i + 1
            return (name, length, false)
        }
        // Attributes: whitespace, then `name = "value"` or `name = 'value'`, until `>` or `/>`.
        while i < count {
            let c = p[i]
            if Self.isSpace(c) {
                i += 1
            } else if c == UInt8(ascii: ">") {
                pos = i + 1
                return (name, length, false)
            } else if c == UInt8(ascii: "/") {
                guard i + 1 < count else { break }
                guard p[i + 1] == UInt8(ascii: ">") else {
                    throw error(.malformed, "expected '>' after '/' in a tag", at: i + 1)
                }
                pos = i + 2
                return (name, length, true)
            } else if Self.isNameByte(c), Self.isSpace(p[i - 1]) {
                while i < count, Self.isNameByte(p[i]) { i += 1 }
                while i < count, Self.isSpace(p[i]) { i += 1 }
                guard i < count else { break }
                guard p[i] == UInt8(ascii: "=") else { throw error(.malformed, "expected '=' after an attribute name", at: i) }
                i += 1
                while i < count, Self.isSpace(p[i]) { i += 1 }
                guard i < count else { break }
                let quote = p[i]
                guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                    throw error(.malformed, "expected a quoted attribute value", at: i)
                }
                i += 1
                while i < count, p[i] != quote, p[i] != UInt8(ascii: "<") { i += 1 }
                guard i < count else { break }
                guard p[i] == quote else { throw error(.malformed, "'<' in an attribute value", at: i) }
                i += 1
            } else {
                throw error(.malformed, "unexpected character in a tag", at: i)
            }
        }
        throw error(.truncated, "unterminated tag", at: start)
    }

    /// Reads `</name>` at `pos`, checking the name.
    mutating func readCloseTag(expected: UInt64, expectedName: String) throws {
        let start = pos
        guard pos + 1 < count, p[pos] == UInt8(ascii: "<"), p[pos + 1] == UInt8(ascii: "/") else {
            throw error(.malformed, "expected </\(expectedName)>", at: start)
        }
        var i = pos + 2
        while i < count, Self.isNameByte(p[i]) { i += 1 }
        let length = i - start - 2
        guard length > 0, length <= 8, Self.pack(p + start + 2, length) == expected else {
            let found = String(decoding: UnsafeBufferPointer(start: p + start, count: min(i - start, 64)), as: UTF8.self)
            throw error(.malformed, "mismatched closing tag: expected </\(expectedName)>, found \(found)", at: start)
        }
        while i < count, Self.isSpace(p[i]) { i += 1 }
        guard i < count else { throw error(.truncated, "unterminated closing tag </\(expectedName)", at: start) }
        guard p[i] == UInt8(ascii: ">") else {
            throw error(.malformed, "expected '>' to end </\(expectedName)", at: i)
        }
        pos = i + 1
    }

    /// The name of the tag at `start` (for messages).
    func tagName(_ start: Int, _ length: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: p + start + 1, count: min(length, 64)), as: UTF8.self)
    }
}
