import Foundation

/// Walks an XML property list once, checking its structure, and hands what it finds to `sink`.
///
/// This is the only place that knows how elements nest: the prolog and `<plist>` wrappers, which
/// element may stand where, a `<key>` before each dictionary value, the depth limit, and what may
/// follow the root. `XMLPlistLexer` reads the tokens; the sink decides what to keep (a tree, a
/// streamed object table, or nothing), so every reader of XML throws the same errors.
///
/// Containers are not scanned recursively: each open `<array>`/`<dict>` is a `Frame`, and depth is
/// the number of frames, checked before a push, so deep input fails with `.tooDeep` instead of
/// overflowing the stack. Every value element counts toward `PlistReadOptions.maxValueCount`.
///
/// ```swift
/// var scanner = XMLPlistScanner(text: text, base: base, options: options, sink: XMLPlistTreeSink())
/// try scanner.scanDocument()
/// ```
struct XMLPlistScanner<Sink: XMLPlistSink> {
    typealias Tag = XMLPlistTag

    var lexer: XMLPlistLexer
    var sink: Sink
    let maxDepth: Int
    let maxValueCount: Int
    /// Value elements started so far, the root included.
    private var valueCount = 0

    private struct Frame {
        var isDict: Bool
        /// A dictionary's key has been read and its value has not.
        var awaitingValue: Bool
        var openOffset: Int
    }
    private var frames: [Frame] = []
    /// The last `<key>` read, for the message about a dictionary that ends without its value.
    private var lastKey = ""

    init(text: UnsafeBufferPointer<UInt8>, base: UnsafePointer<UInt8>, options: PlistReadOptions, sink: Sink) {
        lexer = XMLPlistLexer(text: text, base: base, options: options)
        self.sink = sink
        maxDepth = max(0, options.maxDepth)
        maxValueCount = options.maxValueCount
    }

    /// Scans prolog, root element (with or without `<plist>`) and what may follow it.
    mutating func scanDocument() throws {
        let count = lexer.count
        guard count > 0 else { throw lexer.error(.truncated, "empty input: no XML property list", at: 0) }
        try lexer.skipMisc(inProlog: true)
        guard lexer.pos < count else { throw lexer.error(.truncated, "no root element in XML property list", at: lexer.pos) }
        guard lexer.p[lexer.pos] == UInt8(ascii: "<") else {
            throw lexer.error(.malformed, "text outside elements before the root element", at: lexer.pos)
        }

        // `<plist>` wrappers: Apple's parser takes `<plist>` anywhere a value is expected; here
        // only around the root, where files have it.
        var wrappers: [Int] = []
        while lexer.isOpenTag(named: Tag.plist) {
            let start = lexer.pos
            let selfClosing = try lexer.readOpenTag().selfClosing
            if selfClosing { throw lexer.error(.malformed, "empty <plist/>: a property list needs one value", at: start) }
            guard wrappers.count < maxDepth else {
                throw lexer.error(.tooDeep, "<plist> wrappers nested deeper than \(maxDepth)", at: start)
            }
            wrappers.append(start)
            try lexer.skipMisc(inProlog: false)
            guard lexer.pos < count else { throw lexer.error(.truncated, "unclosed <plist>", at: start) }
            guard lexer.p[lexer.pos] == UInt8(ascii: "<") else {
                throw lexer.error(.malformed, "text inside <plist> outside any value", at: lexer.pos)
            }
            if lexer.pos + 1 < count, lexer.p[lexer.pos + 1] == UInt8(ascii: "/") {
                throw lexer.error(.malformed, "empty <plist>: a property list needs one value", at: lexer.pos)
            }
        }

        try scanValue()

        for start in wrappers.reversed() {
            try lexer.skipMisc(inProlog: false)
            guard lexer.pos < count else { throw lexer.error(.truncated, "unclosed <plist> (opened here)", at: start) }
            guard lexer.p[lexer.pos] == UInt8(ascii: "<") else {
                throw lexer.error(.malformed, "text after the value inside <plist>", at: lexer.pos)
            }
            guard lexer.pos + 1 < count, lexer.p[lexer.pos + 1] == UInt8(ascii: "/") else {
                throw lexer.error(.malformed, "a second value inside <plist>: a property list holds one", at: lexer.pos)
            }
            try lexer.readCloseTag(expected: Tag.plist, expectedName: "plist")
        }

        // Foundation stops reading after the root element; only strict reading checks the rest.
        guard lexer.options.strict else { return }
        try lexer.skipMisc(inProlog: false, allowInstructions: true)
        if lexer.pos < count {
            throw lexer.error(.malformed, "unexpected content after the root element", at: lexer.pos)
        }
    }

    /// Scans one value starting at the `<` of its element, with everything nested in it.
    private mutating func scanValue() throws {
        while true {
            lexer.skipWhitespace()
            let tagStart = lexer.pos
            guard tagStart < lexer.count else {
                if let frame = frames.last {
                    throw lexer.error(.truncated, "unclosed <\(frame.isDict ? "dict" : "array")> (opened here)",
                                      at: frame.openOffset)
                }
                throw lexer.error(.truncated, "expected a value", at: tagStart)
            }
            guard lexer.p[tagStart] == UInt8(ascii: "<") else {
                throw lexer.error(.malformed, "text outside elements", at: tagStart)
            }
            guard tagStart + 1 < lexer.count else { throw lexer.error(.truncated, "unterminated tag", at: tagStart) }
            let next = lexer.p[tagStart + 1]
            if next == UInt8(ascii: "/") {
                guard let frame = frames.last else {
                    throw lexer.error(.malformed, "closing tag where a value was expected", at: tagStart)
                }
                try lexer.readCloseTag(expected: frame.isDict ? Tag.dict : Tag.array,
                                       expectedName: frame.isDict ? "dict" : "array")
                if frame.awaitingValue {
                    throw lexer.error(.malformed, "<dict> ends after <key>\(lastKey)</key> without its value",
                                      at: tagStart)
                }
                frames.removeLast()
                sink.closeContainer(end: lexer.pos)
                if finishedValue() { return }
                continue
            }
            if next == UInt8(ascii: "!") {
                if lexer.startsWith("<!--") { try lexer.skipComment(); continue }
                throw lexer.error(.malformed, "unexpected markup '<!' where an element was expected", at: tagStart)
            }
            if next == UInt8(ascii: "?") {
                throw lexer.error(.malformed, "processing instruction inside the property list", at: tagStart)
            }

            let (name, nameLength, selfClosing) = try lexer.readOpenTag()
            if try readKey(name, nameLength, selfClosing: selfClosing, at: tagStart) { continue }
            valueCount += 1
            guard valueCount <= maxValueCount else {
                throw lexer.error(.tooLarge, "more than \(maxValueCount) values (PlistReadOptions.maxValueCount)", at: tagStart)
            }

            let value: PlistValue
            switch name {
            case Tag.array, Tag.dict:
                // An empty container counts toward the depth too, as it would in a binary file.
                guard frames.count < maxDepth else {
                    throw lexer.error(.tooDeep, "arrays and dictionaries nested deeper than \(maxDepth)", at: tagStart)
                }
                if selfClosing {
                    value = name == Tag.dict ? .dictionary(PlistDictionary()) : .array([])
                } else {
                    frames.append(Frame(isDict: name == Tag.dict, awaitingValue: false, openOffset: tagStart))
                    sink.openContainer(isDictionary: name == Tag.dict)
                    continue
                }
            case Tag.string:
                value = .string(try lexer.readText(selfClosing: selfClosing, closing: Tag.string, "string", openedAt: tagStart))
            case Tag.key:
                value = .string(try readStrayKey(selfClosing: selfClosing, at: tagStart))
            case Tag.integer:
                value = .integer(try lexer.readInteger(selfClosing: selfClosing, openedAt: tagStart))
            case Tag.real:
                value = .real(try lexer.readReal(selfClosing: selfClosing, openedAt: tagStart))
            case Tag.true, Tag.false:
                if !selfClosing {
                    try lexer.readCloseTag(expected: name, expectedName: name == Tag.true ? "true" : "false")
                }
                value = .bool(name == Tag.true)
            case Tag.date:
                value = .date(try lexer.readDate(selfClosing: selfClosing, openedAt: tagStart))
            case Tag.data:
                value = .data(try lexer.readData(selfClosing: selfClosing, openedAt: tagStart))
            case Tag.plist:
                throw lexer.error(.malformed, "<plist> nested inside a value", at: tagStart)
            default:
                throw lexer.error(.malformed, "unknown tag <\(lexer.tagName(tagStart, nameLength))>", at: tagStart)
            }
            sink.value(value, end: lexer.pos)
            if finishedValue() { return }
        }
    }

    /// Records that a value of the innermost container is complete; returns whether it was the root.
    @inline(__always) private mutating func finishedValue() -> Bool {
        guard !frames.isEmpty else { return true }
        frames[frames.count - 1].awaitingValue = false
        return false
    }

    /// Reads the `<key>` a dictionary expects next, if the innermost open container is a `<dict>`
    /// waiting for one; returns whether it did. Any other element there is an error.
    private mutating func readKey(_ name: UInt64, _ nameLength: Int, selfClosing: Bool, at tagStart: Int) throws -> Bool {
        guard let frame = frames.last, frame.isDict, !frame.awaitingValue else { return false }
        guard name == Tag.key else {
            throw lexer.error(.malformed,
                              "found <\(lexer.tagName(tagStart, nameLength))> in <dict> where a <key> was expected",
                              at: tagStart)
        }
        let key = try lexer.readText(selfClosing: selfClosing, closing: Tag.key, "key", openedAt: tagStart)
        frames[frames.count - 1].awaitingValue = true
        lastKey = key
        sink.key(key)
        return true
    }

    /// A `<key>` where a value belongs (in an array, as a dictionary's value, or as the root):
    /// Apple's parser reads it as a string, and so does this one unless strict. Apple's writers never
    /// produce one.
    private mutating func readStrayKey(selfClosing: Bool, at tagStart: Int) throws -> String {
        if lexer.options.strict {
            if let frame = frames.last, frame.isDict {
                throw lexer.error(.malformed, "<key> follows <key> in <dict>: the first key has no value", at: tagStart)
            }
            throw lexer.error(.malformed, "<key> outside a <dict>", at: tagStart)
        }
        return try lexer.readText(selfClosing: selfClosing, closing: Tag.key, "key", openedAt: tagStart)
    }
}
