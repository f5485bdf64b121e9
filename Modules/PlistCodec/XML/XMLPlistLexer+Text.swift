import Foundation

// Element content: `<string>`/`<key>` text (entities, CDATA), and the raw content of scalar elements.
extension XMLPlistLexer {
    /// Reads the text of a `<string>` or `<key>` up to and including its closing tag.
    ///
    /// The content is kept exactly, whitespace and line endings included. A string without `&` or
    /// CDATA becomes a `String` straight from its bytes; otherwise it is decoded into `scratch`.
    mutating func readText(selfClosing: Bool, closing: UInt64, _ name: String, openedAt: Int) throws -> String {
        if selfClosing { return "" }
        let start = pos
        guard let lt = find(UInt8(ascii: "<"), from: start) else {
            throw error(.truncated, "unclosed <\(name)> (opened here)", at: openedAt)
        }
        let amp = find(UInt8(ascii: "&"), from: start, to: lt)
        if amp == nil, lt + 1 < count, p[lt + 1] == UInt8(ascii: "/") {
            pos = lt
            try readCloseTag(expected: closing, expectedName: name)
            switch TextCursor.makeString(text, start..<lt) {
            case .success(let s): return s
            case .failure(let bad): throw error(.invalidString, "invalid UTF-8 in <\(name)>", at: bad.offset)
            }
        }
        return try readTextSlowly(from: start, closing: closing, name, openedAt: openedAt)
    }

    /// The general case of `readText`: entities and CDATA sections.
    private mutating func readTextSlowly(from start: Int, closing: UInt64, _ name: String,
                                         openedAt: Int) throws -> String {
        scratch.removeAll(keepingCapacity: true)
        var i = start
        while true {
            // A run of plain text up to the next `<` or `&` (both ASCII, so UTF-8 sequences never straddle).
            var j = i
            while j < count, p[j] != UInt8(ascii: "<"), p[j] != UInt8(ascii: "&") { j += 1 }
            try appendValidated(i..<j, in: name)
            guard j < count else { throw error(.truncated, "unclosed <\(name)> (opened here)", at: openedAt) }
            if p[j] == UInt8(ascii: "&") {
                i = try appendEntity(at: j)
                continue
            }
            pos = j
            if startsWith("<![CDATA[") {
                let body = j + 9
                var k = body
                while k + 2 < count,
                      !(p[k] == UInt8(ascii: "]") && p[k + 1] == UInt8(ascii: "]") && p[k + 2] == UInt8(ascii: ">")) {
                    k += 1
                }
                guard k + 2 < count else { throw error(.truncated, "unterminated CDATA section", at: j) }
                try appendValidated(body..<k, in: name)
                i = k + 3
                continue
            }
            guard j + 1 < count, p[j + 1] == UInt8(ascii: "/") else {
                throw error(.malformed, "unexpected '<' inside <\(name)>: elements cannot nest in text", at: j)
            }
            try readCloseTag(expected: closing, expectedName: name)
            return String(decoding: scratch, as: UTF8.self)
        }
    }

    /// Appends `range` of the input to `scratch` after checking it is valid UTF-8.
    private mutating func appendValidated(_ range: Range<Int>, in name: String) throws {
        guard !range.isEmpty else { return }
        if let bad = TextCursor.firstInvalidUTF8(in: text, range) {
            throw error(.invalidString, "invalid UTF-8 in <\(name)>", at: bad)
        }
        scratch.append(contentsOf: UnsafeBufferPointer(start: p + range.lowerBound, count: range.count))
    }

    /// Decodes the entity or character reference at `start` (an `&`) into `scratch`; returns the
    /// offset after its `;`.
    private mutating func appendEntity(at start: Int) throws -> Int {
        var end = start + 1
        while end < count, end - start <= 40, p[end] != UInt8(ascii: ";"), p[end] != UInt8(ascii: "<"),
              p[end] != UInt8(ascii: "&"), !Self.isSpace(p[end]) {
            end += 1
        }
        guard end < count, p[end] == UInt8(ascii: ";") else {
            throw error(.malformed, "unterminated entity reference: expected ';'", at: start)
        }
        let name = UnsafeBufferPointer(start: p + start + 1, count: end - start - 1)
        let scalar: UInt32
        if name.first == UInt8(ascii: "#") {
            scalar = try characterReference(name, at: start)
        } else {
            switch Self.pack(name.baseAddress ?? p, min(name.count, 8)) {
            case 0x74_6c where name.count == 2: scalar = 0x3C // lt
            case 0x74_67 where name.count == 2: scalar = 0x3E // gt
            case 0x70_6d_61 where name.count == 3: scalar = 0x26 // amp
            case 0x74_6f_75_71 where name.count == 4: scalar = 0x22 // quot
            case 0x73_6f_70_61 where name.count == 4: scalar = 0x27 // apos
            default:
                let shown = String(decoding: name, as: UTF8.self)
                throw error(.malformed, "unknown entity &\(shown);", at: start)
            }
        }
        if scalar < 0x80 {
            scratch.append(UInt8(truncatingIfNeeded: scalar))
        } else if let s = Unicode.Scalar(scalar) {
            scratch.append(contentsOf: String(s).utf8)
        }
        return end + 1
    }

    /// The scalar value of `#NNN` or `#xHH`; surrogates and values past U+10FFFF are errors.
    private func characterReference(_ name: UnsafeBufferPointer<UInt8>, at start: Int) throws -> UInt32 {
        var i = 1
        var radix: UInt32 = 10
        if name.count > 1, name[1] | 0x20 == UInt8(ascii: "x") { radix = 16; i = 2 }
        guard i < name.count else { throw error(.malformed, "empty character reference", at: start) }
        var value: UInt32 = 0
        while i < name.count {
            guard let d = Self.digitValue(name[i], radix: radix) else {
                throw error(.malformed, "bad digit in character reference", at: start + 1 + i)
            }
            value = value &* radix &+ d
            if value > 0x10FFFF { throw error(.invalidString, "character reference beyond U+10FFFF", at: start) }
            i += 1
        }
        if value >= 0xD800 && value <= 0xDFFF {
            throw error(.invalidString, "character reference to a surrogate code point", at: start)
        }
        return value
    }

    @inline(__always) static func digitValue(_ c: UInt8, radix: UInt32) -> UInt32? {
        if c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") { return UInt32(c &- UInt8(ascii: "0")) }
        guard radix == 16 else { return nil }
        let lower = c | 0x20
        if lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "f") { return UInt32(lower &- UInt8(ascii: "a") &+ 10) }
        return nil
    }

    /// The offset of the first `byte` in `from..<to` (default: to the end), found with `memchr`.
    @inline(__always) func find(_ byte: UInt8, from: Int, to: Int? = nil) -> Int? {
        let end = to ?? count
        guard from < end else { return nil }
        guard let hit = memchr(p + from, Int32(byte), end - from) else { return nil }
        return p.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    /// Reads the raw content of a scalar element (`<integer>`, `<real>`, `<date>`, `<data>`) up to
    /// and including its closing tag, and returns the content's range.
    mutating func readContent(closing: UInt64, _ name: String, openedAt: Int) throws -> Range<Int> {
        let start = pos
        guard let lt = find(UInt8(ascii: "<"), from: start) else {
            throw error(.truncated, "unclosed <\(name)> (opened here)", at: openedAt)
        }
        pos = lt
        guard lt + 1 < count, p[lt + 1] == UInt8(ascii: "/") else {
            throw error(.malformed, "unexpected '<' inside <\(name)>: expected </\(name)>", at: lt)
        }
        try readCloseTag(expected: closing, expectedName: name)
        return start..<lt
    }

    /// `range` without leading and trailing ASCII whitespace.
    func trimmed(_ range: Range<Int>) -> Range<Int> {
        var lo = range.lowerBound, hi = range.upperBound
        while lo < hi, Self.isSpace(p[lo]) { lo += 1 }
        while hi > lo, Self.isSpace(p[hi - 1]) { hi -= 1 }
        return lo..<hi
    }
}
