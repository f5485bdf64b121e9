import Foundation

// Tokens of the OpenStep format: whitespace and comments, strings, and `<hex>` data.
extension OpenStepPlistReader.Parser {
    /// Whether `c` may appear in an unquoted string: `[A-Za-z0-9_$+/:.-]`.
    @inline(__always) static func isUnquoted(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: ":"),
             UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    @inline(__always) static func startsString(_ c: UInt8) -> Bool {
        c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") || isUnquoted(c)
    }

    /// Whether a line or paragraph separator (U+2028, U+2029, which Apple's parser treats as
    /// whitespace) starts at `i`.
    @inline(__always) func isUnicodeSeparator(at i: Int) -> Bool {
        i + 2 < count && p[i] == 0xE2 && p[i + 1] == 0x80 && (p[i + 2] == 0xA8 || p[i + 2] == 0xA9)
    }

    /// Skips whitespace (including VT, FF, U+2028, U+2029) and `//` and `/* */` comments.
    mutating func skipSpace() throws {
        while pos < count {
            let c = p[pos]
            switch c {
            case 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D:
                pos += 1
            case 0xE2 where isUnicodeSeparator(at: pos):
                pos += 3
            case UInt8(ascii: "/") where pos + 1 < count && p[pos + 1] == UInt8(ascii: "/"):
                pos += 2
                while pos < count, p[pos] != 0x0A, p[pos] != 0x0D, !isUnicodeSeparator(at: pos) { pos += 1 }
            case UInt8(ascii: "/") where pos + 1 < count && p[pos + 1] == UInt8(ascii: "*"):
                let start = pos
                pos += 2
                while true {
                    guard pos + 1 < count else {
                        // Foundation ends the comment at the end of the input.
                        guard strict else { pos = count; return }
                        pos = start
                        throw error(.truncated, "unterminated comment /*", at: start)
                    }
                    if p[pos] == UInt8(ascii: "*"), p[pos + 1] == UInt8(ascii: "/") { pos += 2; break }
                    pos += 1
                }
            default:
                return
            }
        }
    }

    /// Reads a quoted or unquoted string at `pos`.
    mutating func readString() throws -> String {
        let c = p[pos]
        guard c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") else {
            let start = pos
            while pos < count, Self.isUnquoted(p[pos]) { pos += 1 }
            return String(decoding: UnsafeBufferPointer(start: p + start, count: pos - start), as: UTF8.self)
        }
        let open = pos
        let start = pos + 1
        var i = start
        while i < count, p[i] != c, p[i] != UInt8(ascii: "\\") { i += 1 }
        guard i < count else { throw error(.truncated, "unterminated quoted string", at: open) }
        if p[i] == c {
            pos = i + 1
            switch TextCursor.makeString(text, start..<i) {
            case .success(let s): return s
            case .failure(let bad): throw error(.invalidString, "invalid UTF-8 in a string", at: bad.offset)
            }
        }
        return try readEscapedString(quote: c, open: open)
    }

    /// A `\\U` escape of half a surrogate pair with no other half: an error when strict, else
    /// U+FFFD, as Foundation reads it.
    private mutating func unpairedSurrogate(_ unit: UInt16, at offset: Int) throws {
        if strict { throw error(.invalidString, "unpaired surrogate \\U\(String(unit, radix: 16))", at: offset) }
        appendScalar(0xFFFD)
    }

    /// The general case of a quoted string: backslash escapes.
    private mutating func readEscapedString(quote: UInt8, open: Int) throws -> String {
        scratch.removeAll(keepingCapacity: true)
        var i = open + 1
        var pendingHigh: (unit: UInt16, at: Int)?
        while true {
            var j = i
            while j < count, p[j] != quote, p[j] != UInt8(ascii: "\\") { j += 1 }
            if j > i, let high = pendingHigh {
                try unpairedSurrogate(high.unit, at: high.at)
                pendingHigh = nil
            }
            if let bad = TextCursor.firstInvalidUTF8(in: text, i..<j) {
                throw error(.invalidString, "invalid UTF-8 in a string", at: bad)
            }
            scratch.append(contentsOf: UnsafeBufferPointer(start: p + i, count: j - i))
            guard j < count else { throw error(.truncated, "unterminated quoted string", at: open) }
            if p[j] == quote {
                if let high = pendingHigh { try unpairedSurrogate(high.unit, at: high.at) }
                pos = j + 1
                return String(decoding: scratch, as: UTF8.self)
            }
            // A backslash.
            let escape = j
            guard j + 1 < count else { throw error(.truncated, "unterminated quoted string", at: open) }
            let e = p[j + 1]
            i = j + 2
            if e == UInt8(ascii: "U") {
                var unit: UInt16 = 0
                var digits = 0
                while digits < 4, i < count, let d = XMLPlistLexer.digitValue(p[i], radix: 16) {
                    unit = unit << 4 | UInt16(d)
                    i += 1
                    digits += 1
                }
                guard digits > 0 else { throw error(.malformed, "\\U needs hex digits", at: escape) }
                if let high = pendingHigh, unit >= 0xDC00 && unit <= 0xDFFF {
                    pendingHigh = nil
                    let scalar = 0x10000 + (UInt32(high.unit - 0xD800) << 10 | UInt32(unit - 0xDC00))
                    appendScalar(scalar)
                    continue
                }
                if let high = pendingHigh {
                    try unpairedSurrogate(high.unit, at: high.at)
                    pendingHigh = nil
                }
                if unit >= 0xD800 && unit <= 0xDBFF {
                    pendingHigh = (unit, escape)
                } else if unit >= 0xDC00 && unit <= 0xDFFF {
                    try unpairedSurrogate(unit, at: escape)
                } else {
                    appendScalar(UInt32(unit))
                }
                continue
            }
            if let high = pendingHigh {
                try unpairedSurrogate(high.unit, at: high.at)
                pendingHigh = nil
            }
            switch e {
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                // Up to three octal digits, kept to 8 bits as Apple's parser does, in NeXTSTEP encoding.
                var byte = e &- UInt8(ascii: "0")
                var digits = 1
                while digits < 3, i < count, p[i] >= UInt8(ascii: "0"), p[i] <= UInt8(ascii: "7") {
                    byte = byte &<< 3 &+ (p[i] &- UInt8(ascii: "0"))
                    i += 1
                    digits += 1
                }
                appendScalar(Self.nextStepScalar(byte))
            case UInt8(ascii: "a"): scratch.append(0x07)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "v"): scratch.append(0x0B)
            default:
                // Any other character stands for itself; a non-ASCII one is copied with the next run.
                if e < 0x80 { scratch.append(e) } else { i = j + 1 }
            }
        }
    }

    private mutating func appendScalar(_ value: UInt32) {
        if value < 0x80 {
            scratch.append(UInt8(value))
        } else if let s = Unicode.Scalar(value) {
            scratch.append(contentsOf: String(s).utf8)
        }
    }

    /// Reads `<hex bytes>` at `pos`: pairs of hex digits, whitespace allowed between pairs.
    mutating func readData() throws -> Data {
        let open = pos
        var i = pos + 1
        guard let close = memchr(p + i, Int32(UInt8(ascii: ">")), count - i) else {
            throw error(.truncated, "unterminated data: expected '>'", at: open)
        }
        let end = p.distance(to: close.assumingMemoryBound(to: UInt8.self))
        var bytes = [UInt8]()
        bytes.reserveCapacity((end - i) / 2)
        while i < end {
            let c = p[i]
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { i += 1; continue }
            guard let high = XMLPlistLexer.digitValue(c, radix: 16) else {
                throw error(.malformed, "unexpected character in <data>: expected hex digits", at: i)
            }
            guard i + 1 < end, let low = XMLPlistLexer.digitValue(p[i + 1], radix: 16) else {
                throw error(.malformed, "odd number of hex digits in a <data> byte group", at: i)
            }
            bytes.append(UInt8(high << 4 | low))
            i += 2
        }
        pos = end + 1
        return Data(bytes)
    }

    /// The Unicode scalar for a NeXTSTEP-encoded byte (the encoding octal escapes use).
    static func nextStepScalar(_ byte: UInt8) -> UInt32 {
        byte < 0x80 ? UInt32(byte) : UInt32(nextStepHigh[Int(byte) - 0x80])
    }

    /// NeXTSTEP 0x80...0xFF in Unicode. 0xFE and 0xFF are unassigned; Apple's parser reads them as
    /// U+0000, and so does this table.
    static let nextStepHigh: [UInt16] = [
        0x00A0, 0x00C0, 0x00C1, 0x00C2, 0x00C3, 0x00C4, 0x00C5, 0x00C7, 0x00C8, 0x00C9, 0x00CA, 0x00CB,
        0x00CC, 0x00CD, 0x00CE, 0x00CF, 0x00D0, 0x00D1, 0x00D2, 0x00D3, 0x00D4, 0x00D5, 0x00D6, 0x00D9,
        0x00DA, 0x00DB, 0x00DC, 0x00DD, 0x00DE, 0x00B5, 0x00D7, 0x00F7, 0x00A9, 0x00A1, 0x00A2, 0x00A3,
        0x2044, 0x00A5, 0x0192, 0x00A7, 0x00A4, 0x2019, 0x201C, 0x00AB, 0x2039, 0x203A, 0xFB01, 0xFB02,
        0x00AE, 0x2013, 0x2020, 0x2021, 0x00B7, 0x00A6, 0x00B6, 0x2022, 0x201A, 0x201E, 0x201D, 0x00BB,
        0x2026, 0x2030, 0x00AC, 0x00BF, 0x00B9, 0x02CB, 0x00B4, 0x02C6, 0x02DC, 0x00AF, 0x02D8, 0x02D9,
        0x00A8, 0x00B2, 0x02DA, 0x00B8, 0x00B3, 0x02DD, 0x02DB, 0x02C7, 0x2014, 0x00B1, 0x00BC, 0x00BD,
        0x00BE, 0x00E0, 0x00E1, 0x00E2, 0x00E3, 0x00E4, 0x00E5, 0x00E7, 0x00E8, 0x00E9, 0x00EA, 0x00EB,
        0x00EC, 0x00C6, 0x00ED, 0x00AA, 0x00EE, 0x00EF, 0x00F0, 0x00F1, 0x0141, 0x00D8, 0x0152, 0x00BA,
        0x00F2, 0x00F3, 0x00F4, 0x00F5, 0x00F6, 0x00E6, 0x00F9, 0x00FA, 0x00FB, 0x0131, 0x00FC, 0x00FD,
        0x0142, 0x00F8, 0x0153, 0x00DF, 0x00FE, 0x00FF, 0x0000, 0x0000,
    ]
}
