import Foundation

/// Reads old-style OpenStep (NeXT, "ASCII") property lists into `PlistValue`, as Apple's
/// `PropertyListSerialization` still does.
///
/// The grammar: `{ key = value; ... }` dictionaries, `( a, b, c )` arrays (a trailing comma is
/// fine), `<0fbd 77>` data, `"..."` or `'...'` strings with backslash escapes, unquoted strings of
/// `[A-Za-z0-9_$+/:.-]`, and `//` and `/* */` comments. A file that starts with a string and goes on
/// is a "strings file": `key = value;` pairs with no braces, read as a dictionary. `key;` is short
/// for `key = key;`. Every value is a string, data, array or dictionary: OpenStep has no numbers.
/// A file that is only whitespace and comments is an empty dictionary, as in Apple's parser.
///
/// Differences from Apple's parser, all in the lenient direction except the last: `+` is allowed in unquoted strings; UTF-16 input with a
/// byte-order mark is read (and handed to `XMLPlistReader` if it turns out to be XML); `\U` with no
/// hex digit and an unterminated `/* ...` comment are errors, and input must be UTF-8 (Apple falls
/// back to other encodings).
///
/// Nesting is kept on explicit stacks (no recursion), limited by `options.maxDepth`. Errors carry
/// `.line(l, column: c)`, 1-based, the column counting **bytes** of UTF-8 text (see `TextCursor`).
struct OpenStepPlistReader {
    let data: Data
    let options: PlistReadOptions

    init(data: Data, options: PlistReadOptions) {
        self.data = data
        self.options = options
    }

    /// Parses the whole document.
    func read() throws -> PlistValue {
        if let first = data.first, first == 0xFE || first == 0xFF, data.dropFirst().first == (first ^ 0x01) {
            let utf8 = try TextCursor.transcodeUTF16(data.dropFirst(2), bigEndian: first == 0xFE)
            let transcoded = Data(utf8)
            if PlistFormat.detect(transcoded) == .xml {
                return try XMLPlistReader(data: transcoded, options: options).read()
            }
            return try OpenStepPlistReader(data: transcoded, options: options).read()
        }
        if Self.looksLikeXML(data) {
            return try XMLPlistReader(data: data, options: options).read()
        }
        let maxDepth = options.maxDepth, maxValueCount = options.maxValueCount
        let strict = options.strict
        return try TextCursor.withUTF8Text(data) { text, base in
            var parser = Parser(text: text, base: base, maxDepth: maxDepth, maxValueCount: maxValueCount)
            parser.strict = strict
            return try parser.parseDocument()
        }
    }
}

extension OpenStepPlistReader {
    /// Whether `data` is XML that `PlistFormat.detect` missed: a root element without `<plist>`,
    /// such as `<dict>` or `<array>`. OpenStep data (`<0fbd>`) holds only hex digits and spaces, so
    /// a run of letters right after the `<` that reaches one past `f` means a tag.
    static func looksLikeXML(_ data: Data) -> Bool {
        var bytes = data.prefix(64)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        bytes = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard bytes.first == UInt8(ascii: "<") else { return false }
        // An element name is letters; scan them until one cannot be a hex digit.
        for c in bytes.dropFirst() {
            let lower = c | 0x20
            guard lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z") else { return false }
            if lower >= UInt8(ascii: "g") { return true }
        }
        return false
    }

    /// The scanning state: bytes, a position, and explicit stacks for open containers.
    struct Parser {
        let text: UnsafeBufferPointer<UInt8>
        let p: UnsafePointer<UInt8>
        let count: Int
        let maxDepth: Int
        let maxValueCount: Int
        /// Values started so far (`PlistReadOptions.maxValueCount`), the root included.
        var valueCount = 0
        /// `PlistReadOptions.strict`: refuse an unterminated comment and unpaired surrogate escapes.
        var strict = false
        var pos = 0

        struct Frame {
            /// `{`, `(`, or the braceless dictionary of a strings file (`isFile`).
            var isDict: Bool
            var isFile: Bool
            var valueStart: Int
            var keyStart: Int
            var openOffset: Int
            /// A value was just read: a separator or the closing bracket comes next.
            var afterValue = false
        }
        var frames: [Frame] = []
        var values: [PlistValue] = []
        var keys: [String] = []
        var scratch: [UInt8] = []

        init(text: UnsafeBufferPointer<UInt8>, base: UnsafePointer<UInt8>, maxDepth: Int, maxValueCount: Int) {
            self.text = text
            self.p = base
            self.count = text.count
            self.maxDepth = max(0, maxDepth)
            self.maxValueCount = maxValueCount
        }

        func error(_ kind: PlistError.Kind, _ message: String, at offset: Int) -> PlistError {
            PlistError(kind, "OpenStep property list: " + message, at: TextCursor.location(of: offset, in: text))
        }
    }
}

extension OpenStepPlistReader.Parser {
    /// Parses a whole file: one value, or a strings file.
    mutating func parseDocument() throws -> PlistValue {
        guard count > 0 else { throw error(.truncated, "empty input", at: 0) }
        try skipSpace()
        guard pos < count else {
            // Only space and comments: Foundation reads an empty strings file, one value.
            try countValue(at: pos)
            return .dictionary(PlistDictionary())
        }
        let start = pos
        if Self.startsString(p[pos]) {
            let first = try readString()
            try skipSpace()
            if pos == count {
                try countValue(at: start)
                return .string(first)
            }
            // More follows a top-level string: the whole file is `key = value;` pairs.
            pos = start
            try countValue(at: start)
            try push(isDict: true, isFile: true, at: start)
            return try run()
        }
        let root: PlistValue
        if let scalar = try startValue() {
            root = scalar
        } else {
            root = try run()
        }
        try skipSpace()
        if pos < count { throw error(.malformed, "unexpected content after the root value", at: pos) }
        return root
    }

    /// Reads the start of a value at `pos`: returns a string or data, or opens a container (and returns nil).
    mutating func startValue() throws -> PlistValue? {
        try countValue(at: pos)
        try skipSpace()
        guard pos < count else { throw error(.truncated, "expected a value, found the end of the input", at: pos) }
        let c = p[pos]
        switch c {
        case UInt8(ascii: "{"):
            try push(isDict: true, isFile: false, at: pos)
            pos += 1
            return nil
        case UInt8(ascii: "("):
            try push(isDict: false, isFile: false, at: pos)
            pos += 1
            return nil
        case UInt8(ascii: "<"):
            return .data(try readData())
        default:
            guard Self.startsString(c) else { throw unexpected("a value") }
            return .string(try readString())
        }
    }

    /// Counts one more value toward `maxValueCount`.
    mutating func countValue(at offset: Int) throws {
        valueCount += 1
        guard valueCount <= maxValueCount else {
            throw error(.tooLarge, "more than \(maxValueCount) values (PlistReadOptions.maxValueCount)", at: offset)
        }
    }

    mutating func push(isDict: Bool, isFile: Bool, at offset: Int) throws {
        guard frames.count < maxDepth else {
            throw error(.tooDeep, "arrays and dictionaries nested deeper than \(maxDepth)", at: offset)
        }
        frames.append(Frame(isDict: isDict, isFile: isFile, valueStart: values.count, keyStart: keys.count,
                            openOffset: offset))
    }

    /// Runs until the outermost open container closes, and returns it.
    mutating func run() throws -> PlistValue {
        while true {
            try skipSpace()
            guard let top = frames.last else { throw error(.malformed, "no open container", at: pos) }
            let atEnd = pos == count
            if atEnd && !top.isFile {
                throw error(.truncated, "unclosed '\(top.isDict ? "{" : "(")' (opened here)", at: top.openOffset)
            }
            let c: UInt8 = atEnd ? 0 : p[pos]
            let closes = top.isFile ? atEnd : c == (top.isDict ? UInt8(ascii: "}") : UInt8(ascii: ")"))

            if top.afterValue {
                if c == (top.isDict ? UInt8(ascii: ";") : UInt8(ascii: ",")) && !atEnd {
                    pos += 1
                    frames[frames.count - 1].afterValue = false
                    continue
                }
                // As in Apple's parser, every pair ends with `;`, the last one included.
                guard closes && !top.isDict else {
                    throw top.isDict ? unexpected("';' after the value for key \"\(keys.last ?? "")\"")
                                     : unexpected("',' or ')' in an array")
                }
            }
            if closes {
                if !atEnd { pos += 1 }
                let value = closeFrame()
                if frames.isEmpty { return value }
                values.append(value)
                frames[frames.count - 1].afterValue = true
                continue
            }
            if top.isDict {
                guard !atEnd, Self.startsString(c) else { throw unexpected("a key (a string) or '}'") }
                let keyStart = pos
                let key = try readString()
                try skipSpace()
                if pos < count, p[pos] == UInt8(ascii: ";") {
                    // `key;` is short for `key = key;` (strings files use it).
                    try countValue(at: keyStart)
                    pos += 1
                    keys.append(key)
                    values.append(.string(key))
                    continue
                }
                guard pos < count, p[pos] == UInt8(ascii: "=") else {
                    throw unexpected("'=' or ';' after the key \"\(key)\"")
                }
                pos += 1
                keys.append(key)
            }
            if let scalar = try startValue() {
                values.append(scalar)
                frames[frames.count - 1].afterValue = true
            }
        }
    }

    /// Pops the innermost container and builds its value from the runs on the stacks.
    mutating func closeFrame() -> PlistValue {
        let frame = frames.removeLast()
        defer {
            values.removeSubrange(frame.valueStart...)
            keys.removeSubrange(frame.keyStart...)
        }
        if frame.isDict {
            return .dictionary(XMLPlistReader.makeDictionary(keys: keys[frame.keyStart...],
                                                              values: values[frame.valueStart...]))
        }
        return .array(Array(values[frame.valueStart...]))
    }

    /// An error for the character (or end of input) at `pos` where `expected` should be.
    func unexpected(_ expected: String) -> PlistError {
        guard pos < count else { return error(.truncated, "expected \(expected), found the end of the input", at: pos) }
        let c = p[pos]
        let shown = c >= 0x20 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : "byte 0x\(String(c, radix: 16))"
        return error(.malformed, "expected \(expected), found \(shown)", at: pos)
    }
}
