import Foundation

extension XMLPlistReader {
    /// The element names a property list uses, packed little-endian into a `UInt64` for one compare.
    enum Tag {
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

    /// The scanning state: the bytes, a position, and explicit stacks for open containers.
    ///
    /// Containers are not parsed recursively. Each open `<array>`/`<dict>` is a `Frame`; finished
    /// values go on `values` (and dictionary keys on `keys`), and closing a container moves its run of
    /// values into one array or dictionary. Depth is the number of frames, checked before a push.
    struct Parser {
        let text: UnsafeBufferPointer<UInt8>
        let p: UnsafePointer<UInt8>
        let count: Int
        let maxDepth: Int
        let options: PlistReadOptions
        var pos = 0

        struct Frame {
            var isDict: Bool
            var valueStart: Int
            var keyStart: Int
            var openOffset: Int
        }
        var frames: [Frame] = []
        var values: [PlistValue] = []
        var keys: [String] = []
        /// Reused by strings that need entity or CDATA decoding.
        var scratch: [UInt8] = []

        init(text: UnsafeBufferPointer<UInt8>, base: UnsafePointer<UInt8>, options: PlistReadOptions) {
            self.text = text
            self.p = base
            self.count = text.count
            self.maxDepth = max(0, options.maxDepth)
            self.options = options
        }

        func error(_ kind: PlistError.Kind, _ message: String, at offset: Int) -> PlistError {
            PlistError(kind, "XML property list: " + message, at: TextCursor.location(of: offset, in: text))
        }
    }
}

extension XMLPlistReader.Parser {
    typealias Tag = XMLPlistReader.Tag

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

    /// Parses one value starting at the `<` of its element, with everything nested in it.
    mutating func parseValue() throws -> PlistValue {
        while true {
            skipWhitespace()
            guard pos < count else {
                if let frame = frames.last {
                    throw error(.truncated, "unclosed <\(frame.isDict ? "dict" : "array")> (opened here)",
                                at: frame.openOffset)
                }
                throw error(.truncated, "expected a value", at: pos)
            }
            let tagStart = pos
            guard p[pos] == UInt8(ascii: "<") else {
                throw error(.malformed, "text outside elements", at: pos)
            }
            guard pos + 1 < count else { throw error(.truncated, "unterminated tag", at: pos) }
            let next = p[pos + 1]
            if next == UInt8(ascii: "/") {
                guard let frame = frames.last else {
                    throw error(.malformed, "closing tag where a value was expected", at: pos)
                }
                try readCloseTag(expected: frame.isDict ? Tag.dict : Tag.array,
                                 expectedName: frame.isDict ? "dict" : "array")
                let value = try closeFrame(closingTagAt: tagStart)
                if frames.isEmpty { return value }
                values.append(value)
                continue
            }
            if next == UInt8(ascii: "!") {
                if startsWith("<!--") { try skipComment(); continue }
                throw error(.malformed, "unexpected markup '<!' where an element was expected", at: pos)
            }
            if next == UInt8(ascii: "?") {
                throw error(.malformed, "processing instruction inside the property list", at: pos)
            }

            let (name, nameLength, selfClosing) = try readOpenTag()
            if try readKey(name, nameLength, selfClosing: selfClosing, at: tagStart) { continue }

            let value: PlistValue
            switch name {
            case Tag.array, Tag.dict:
                // An empty container counts toward the depth too, as it would in a binary file.
                guard frames.count < maxDepth else {
                    throw error(.tooDeep, "arrays and dictionaries nested deeper than \(maxDepth)", at: tagStart)
                }
                if selfClosing {
                    value = name == Tag.dict ? .dictionary(PlistDictionary()) : .array([])
                } else {
                    frames.append(Frame(isDict: name == Tag.dict, valueStart: values.count,
                                        keyStart: keys.count, openOffset: tagStart))
                    continue
                }
            case Tag.string:
                value = .string(try readText(selfClosing: selfClosing, closing: Tag.string, "string", openedAt: tagStart))
            case Tag.key:
                value = .string(try readStrayKey(selfClosing: selfClosing, at: tagStart))
            case Tag.integer:
                value = .integer(try readInteger(selfClosing: selfClosing, openedAt: tagStart))
            case Tag.real:
                value = .real(try readReal(selfClosing: selfClosing, openedAt: tagStart))
            case Tag.true, Tag.false:
                if !selfClosing {
                    try readCloseTag(expected: name, expectedName: name == Tag.true ? "true" : "false")
                }
                value = .bool(name == Tag.true)
            case Tag.date:
                value = .date(try readDate(selfClosing: selfClosing, openedAt: tagStart))
            case Tag.data:
                value = .data(try readData(selfClosing: selfClosing, openedAt: tagStart))
            case Tag.plist:
                throw error(.malformed, "<plist> nested inside a value", at: tagStart)
            default:
                throw error(.malformed, "unknown tag <\(tagName(tagStart, nameLength))>", at: tagStart)
            }
            if frames.isEmpty { return value }
            values.append(value)
        }
    }

    /// The name of the tag at `start` (for messages).
    func tagName(_ start: Int, _ length: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: p + start + 1, count: min(length, 64)), as: UTF8.self)
    }

    /// Pops the innermost container and builds its value from the runs on the stacks.
    mutating func closeFrame(closingTagAt offset: Int) throws -> PlistValue {
        let frame = frames.removeLast()
        if !frame.isDict {
            let array = Array(values[frame.valueStart...])
            values.removeSubrange(frame.valueStart...)
            return .array(array)
        }
        let keyCount = keys.count - frame.keyStart
        guard keyCount == values.count - frame.valueStart else {
            throw error(.malformed, "<dict> ends after <key>\(keys.last ?? "")</key> without its value", at: offset)
        }
        defer {
            keys.removeSubrange(frame.keyStart...)
            values.removeSubrange(frame.valueStart...)
        }
        // CoreFoundation reads `<dict><key>CF$UID</key><integer>n</integer></dict>` as a keyed-archive UID.
        if keyCount == 1, ExactKey.same(keys[frame.keyStart], "CF$UID"),
           case .integer(let n) = values[frame.valueStart], let uid = UInt64(exactly: n.value) {
            return .uid(uid)
        }
        return .dictionary(XMLPlistReader.makeDictionary(keys: keys[frame.keyStart...],
                                                          values: values[frame.valueStart...]))
    }
}

extension XMLPlistReader.Parser {
    /// Reads the `<key>` a dictionary expects next, if the innermost open container is a `<dict>`
    /// waiting for one; returns whether it did. Any other element there is an error.
    mutating func readKey(_ name: UInt64, _ nameLength: Int, selfClosing: Bool, at tagStart: Int) throws -> Bool {
        guard let frame = frames.last, frame.isDict,
              keys.count - frame.keyStart == values.count - frame.valueStart else { return false }
        guard name == Tag.key else {
            throw error(.malformed, "found <\(tagName(tagStart, nameLength))> in <dict> where a <key> was expected",
                        at: tagStart)
        }
        keys.append(try readText(selfClosing: selfClosing, closing: Tag.key, "key", openedAt: tagStart))
        return true
    }

    /// A `<key>` where a value belongs (in an array, as a dictionary's value, or as the root):
    /// Apple's parser reads it as a string, and so does this one unless strict. Apple's writers never
    /// produce one.
    mutating func readStrayKey(selfClosing: Bool, at tagStart: Int) throws -> String {
        if options.strict {
            if let frame = frames.last, frame.isDict {
                throw error(.malformed, "<key> follows <key> in <dict>: the first key has no value", at: tagStart)
            }
            throw error(.malformed, "<key> outside a <dict>", at: tagStart)
        }
        return try readText(selfClosing: selfClosing, closing: Tag.key, "key", openedAt: tagStart)
    }
}
