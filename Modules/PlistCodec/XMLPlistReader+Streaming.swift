import Foundation

extension XMLPlistReader.Parser {
    /// Parses the document as `parseDocument` does, but hands the value to `table` as it goes:
    /// arrays that are the root or nested only in arrays are opened in the table and receive each
    /// element as soon as it is complete, so only one element (a dictionary and what it holds) is
    /// ever a `PlistValue`. Everything else, errors included, is `parseDocument`'s.
    ///
    /// - Parameter progress: called with the input offset after each streamed element; everything
    ///   before it will not be read again unless an error needs its line number.
    mutating func streamDocument(into table: inout StreamingBinaryTable, progress: (Int) -> Void) throws {
        guard count > 0 else { throw error(.truncated, "empty input: no XML property list", at: 0) }
        try skipMisc(inProlog: true)
        guard pos < count else { throw error(.truncated, "no root element in XML property list", at: pos) }
        guard p[pos] == UInt8(ascii: "<") else {
            throw error(.malformed, "text outside elements before the root element", at: pos)
        }
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

        try streamValue(into: &table, progress: progress)

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
        guard options.strict else { return }
        try skipMisc(inProlog: false, allowInstructions: true)
        if pos < count {
            throw error(.malformed, "unexpected content after the root element", at: pos)
        }
    }

    /// `parseValue`, with the outermost run of array frames streamed into `table`.
    private mutating func streamValue(into table: inout StreamingBinaryTable, progress: (Int) -> Void) throws {
        // frames[0..<streamed] are arrays whose elements go to `table` instead of `values`.
        var streamed = 0
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
                if frames.count == streamed {
                    frames.removeLast()
                    streamed -= 1
                    table.closeArray()
                    if frames.isEmpty { return }
                    continue
                }
                let value = try closeFrame(closingTagAt: tagStart)
                if frames.count == streamed {
                    table.add(value)
                    if frames.isEmpty { return }
                    progress(pos)
                    continue
                }
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
                guard frames.count < maxDepth else {
                    throw error(.tooDeep, "arrays and dictionaries nested deeper than \(maxDepth)", at: tagStart)
                }
                if selfClosing {
                    value = name == Tag.dict ? .dictionary(PlistDictionary()) : .array([])
                } else {
                    let streams = name == Tag.array && frames.count == streamed
                    frames.append(Frame(isDict: name == Tag.dict, valueStart: values.count,
                                        keyStart: keys.count, openOffset: tagStart))
                    if streams {
                        streamed += 1
                        table.openArray()
                    }
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
            if frames.count == streamed {
                table.add(value)
                if frames.isEmpty { return }
                progress(pos)
                continue
            }
            values.append(value)
        }
    }
}
