import Foundation

/// Reads XML property lists into `PlistValue`.
///
/// Accepts what Apple's parsers accept for files that Apple's writers produce, and a little more:
/// an `<?xml ...?>` declaration, a `<!DOCTYPE ...>`, comments and whitespace between elements, a
/// `<plist>` wrapper (optional, as in Apple's parser), a UTF-8 byte-order mark, and UTF-16 with a
/// byte-order mark (transcoded to UTF-8 first).
///
/// The reader scans bytes without recursion: nesting is kept on explicit stacks, so input nested
/// deeper than `options.maxDepth` fails with `.tooDeep` rather than overflowing the stack.
///
/// Every error is a `PlistError` located with `.line(l, column: c)`: 1-based, the column counting
/// **bytes** of UTF-8 text (see `TextCursor`).
///
/// Where this reader differs from `PropertyListSerialization`: it rejects input Apple repairs or
/// guesses at (characters outside base64 and incomplete groups in `<data>`, content after the root,
/// `<key>` outside a `<dict>`, `&#x;`, date fields out of range such as month 13), and it accepts a
/// little more (integers over the whole `Int128` range, where Apple stops at `-2^63 ... 2^64-1`;
/// `<data/>`; whitespace after an `<integer>`'s digits).
///
/// ```swift
/// let value = try XMLPlistReader(data: data, options: PlistReadOptions()).read()
/// ```
struct XMLPlistReader {
    let data: Data
    let options: PlistReadOptions

    init(data: Data, options: PlistReadOptions) {
        self.data = data
        self.options = options
    }

    /// Parses the whole document.
    func read() throws -> PlistValue {
        let options = options
        return try TextCursor.withUTF8Text(data) { text, base in
            var parser = Parser(text: text, base: base, options: options)
            return try parser.parseDocument()
        }
    }
}

extension XMLPlistReader.Parser {
    /// Parses prolog, root element (with or without `<plist>`) and what may follow it.
    mutating func parseDocument() throws -> PlistValue {
        guard count > 0 else { throw error(.truncated, "empty input: no XML property list", at: 0) }
        try skipMisc(inProlog: true)
        guard pos < count else { throw error(.truncated, "no root element in XML property list", at: pos) }
        guard p[pos] == UInt8(ascii: "<") else {
            throw error(.malformed, "text outside elements before the root element", at: pos)
        }

        // `<plist>` wrappers: Apple's parser takes `<plist>` anywhere a value is expected; here
        // only around the root, where files have it.
        var wrappers: [Int] = []
        while isOpenTag(named: Tag.plist) {
            let start = pos
            let selfClosing = try readOpenTag().selfClosing
            if selfClosing { throw error(.malformed, "empty <plist/>: a property list needs one value", at: start) }
            guard wrappers.count < maxDepth else {
                throw error(.tooDeep, "<plist> wrappers nested deeper than \(maxDepth)", at: start)
            }
            wrappers.append(start)
            try skipMisc(inProlog: false)
            guard pos < count else { throw error(.truncated, "unclosed <plist>", at: start) }
            guard p[pos] == UInt8(ascii: "<") else {
                throw error(.malformed, "text inside <plist> outside any value", at: pos)
            }
            if pos + 1 < count, p[pos + 1] == UInt8(ascii: "/") {
                throw error(.malformed, "empty <plist>: a property list needs one value", at: pos)
            }
        }

        let root = try parseValue()

        for start in wrappers.reversed() {
            try skipMisc(inProlog: false)
            guard pos < count else { throw error(.truncated, "unclosed <plist> (opened here)", at: start) }
            guard p[pos] == UInt8(ascii: "<") else {
                throw error(.malformed, "text after the value inside <plist>", at: pos)
            }
            guard pos + 1 < count, p[pos + 1] == UInt8(ascii: "/") else {
                throw error(.malformed, "a second value inside <plist>: a property list holds one", at: pos)
            }
            try readCloseTag(expected: Tag.plist, expectedName: "plist")
        }

        // Foundation stops reading after the root element; only strict reading checks the rest.
        guard options.strict else { return root }
        try skipMisc(inProlog: false, allowInstructions: true)
        if pos < count {
            throw error(.malformed, "unexpected content after the root element", at: pos)
        }
        return root
    }

    /// Whether the input at `pos` is `<name` followed by whitespace, `>` or `/`.
    func isOpenTag(named packed: UInt64) -> Bool {
        guard pos < count, p[pos] == UInt8(ascii: "<") else { return false }
        var i = pos + 1
        while i < count, Self.isNameByte(p[i]) { i += 1 }
        let length = i - pos - 1
        return length > 0 && length <= 8 && Self.pack(p + pos + 1, length) == packed
    }

    /// Skips whitespace, comments and, in the prolog, `<?...?>` and `<!DOCTYPE ...>`.
    mutating func skipMisc(inProlog: Bool, allowInstructions: Bool = false) throws {
        while true {
            skipWhitespace()
            guard pos + 1 < count, p[pos] == UInt8(ascii: "<") else { return }
            let next = p[pos + 1]
            if next == UInt8(ascii: "!") {
                if startsWith("<!--") {
                    try skipComment()
                } else if inProlog, startsWith("<!DOCTYPE") {
                    try skipDoctype()
                } else {
                    return
                }
            } else if next == UInt8(ascii: "?"), inProlog || allowInstructions {
                try skipInstruction()
            } else {
                return
            }
        }
    }

    /// Skips `<?...?>` starting at `pos`.
    mutating func skipInstruction() throws {
        let start = pos
        var i = pos + 2
        while i + 1 < count {
            if p[i] == UInt8(ascii: "?"), p[i + 1] == UInt8(ascii: ">") { pos = i + 2; return }
            i += 1
        }
        throw error(.truncated, "unterminated processing instruction <?...", at: start)
    }

    /// Skips `<!DOCTYPE ...>`, including an internal subset in brackets and quoted literals.
    mutating func skipDoctype() throws {
        let start = pos
        var i = pos + 9
        var inSubset = false
        while i < count {
            let c = p[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                i += 1
                while i < count, p[i] != c { i += 1 }
            } else if c == UInt8(ascii: "[") {
                inSubset = true
            } else if c == UInt8(ascii: "]") {
                inSubset = false
            } else if c == UInt8(ascii: ">"), !inSubset {
                pos = i + 1
                return
            }
            i += 1
        }
        throw error(.truncated, "unterminated <!DOCTYPE", at: start)
    }
}
