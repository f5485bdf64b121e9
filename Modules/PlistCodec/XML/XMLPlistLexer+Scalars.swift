import Foundation

// `<integer>`, `<real>`, `<date>` and `<data>` content.
extension XMLPlistLexer {
    /// Reads `<integer>`: optional ASCII whitespace, a sign (whitespace may follow it, as Apple
    /// allows), then decimal digits or `0x`/`0X` and hex digits. Values outside `Int64` become wide
    /// integers; values outside `Int128` are `.invalidNumber`.
    mutating func readInteger(selfClosing: Bool, openedAt: Int) throws -> PlistInteger {
        guard !selfClosing else { throw error(.invalidNumber, "empty <integer/>", at: openedAt) }
        let content = try readContent(closing: Tag.integer, "integer", openedAt: openedAt)
        let r = trimmed(content)
        guard !r.isEmpty else { throw error(.invalidNumber, "empty <integer>", at: content.lowerBound) }
        var i = r.lowerBound
        var negative = false
        if p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+") {
            negative = p[i] == UInt8(ascii: "-")
            i += 1
            while i < r.upperBound, Self.isSpace(p[i]) { i += 1 }
        }
        var radix: UInt32 = 10
        if i + 1 < r.upperBound, p[i] == UInt8(ascii: "0"), p[i + 1] | 0x20 == UInt8(ascii: "x") {
            radix = 16
            i += 2
        }
        guard i < r.upperBound else { throw error(.invalidNumber, "<integer> has no digits", at: r.lowerBound) }
        var magnitude: UInt128 = 0
        let base = UInt128(radix)
        while i < r.upperBound {
            guard let d = Self.digitValue(p[i], radix: radix) else {
                throw error(.invalidNumber, "unexpected character in <integer>", at: i)
            }
            let (m, o1) = magnitude.multipliedReportingOverflow(by: base)
            let (s, o2) = m.addingReportingOverflow(UInt128(d))
            guard !o1, !o2 else { throw error(.invalidNumber, "<integer> does not fit in 128 bits", at: r.lowerBound) }
            magnitude = s
            i += 1
        }
        let limit = UInt128(Int128.max)
        if negative {
            guard magnitude <= limit + 1 else {
                throw error(.invalidNumber, "<integer> does not fit in 128 bits", at: r.lowerBound)
            }
            return PlistInteger(magnitude == limit + 1 ? Int128.min : -Int128(magnitude))
        }
        guard magnitude <= limit else { throw error(.invalidNumber, "<integer> does not fit in 128 bits", at: r.lowerBound) }
        return PlistInteger(Int128(magnitude))
    }

    /// Reads `<real>`: a decimal number with optional fraction and exponent, or `nan`, `inf`,
    /// `infinity` (any case, optionally signed), surrounded by optional ASCII whitespace.
    mutating func readReal(selfClosing: Bool, openedAt: Int) throws -> Double {
        guard !selfClosing else { throw error(.invalidNumber, "empty <real/>", at: openedAt) }
        let content = try readContent(closing: Tag.real, "real", openedAt: openedAt)
        let r = trimmed(content)
        guard !r.isEmpty else { throw error(.invalidNumber, "empty <real>", at: content.lowerBound) }
        if let special = specialReal(r) { return special }
        // Check the grammar first: `Double(_:)` also takes hex floats, which property lists do not.
        var i = r.lowerBound
        if p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+") { i += 1 }
        var digits = 0
        while i < r.upperBound, p[i] &- UInt8(ascii: "0") < 10 { i += 1; digits += 1 }
        if i < r.upperBound, p[i] == UInt8(ascii: ".") {
            i += 1
            while i < r.upperBound, p[i] &- UInt8(ascii: "0") < 10 { i += 1; digits += 1 }
        }
        guard digits > 0 else { throw error(.invalidNumber, "<real> is not a number", at: r.lowerBound) }
        if i < r.upperBound, p[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < r.upperBound, p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+") { i += 1 }
            var exponentDigits = 0
            while i < r.upperBound, p[i] &- UInt8(ascii: "0") < 10 { i += 1; exponentDigits += 1 }
            guard exponentDigits > 0 else { throw error(.invalidNumber, "<real> exponent has no digits", at: i) }
        }
        guard i == r.upperBound else { throw error(.invalidNumber, "unexpected character in <real>", at: i) }
        let literal = String(decoding: UnsafeBufferPointer(start: p + r.lowerBound, count: r.count), as: UTF8.self)
        guard let value = Double(literal) else {
            throw error(.invalidNumber, "<real> is not a number", at: r.lowerBound)
        }
        return value
    }

    /// `nan`, `inf`, `infinity` with an optional sign, in any case.
    private func specialReal(_ r: Range<Int>) -> Double? {
        var i = r.lowerBound
        var sign = 1.0
        if p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+") {
            if p[i] == UInt8(ascii: "-") { sign = -1 }
            i += 1
        }
        let n = r.upperBound - i
        guard n == 3 || n == 8 else { return nil }
        var word: UInt64 = 0
        for k in 0..<n { word |= UInt64(p[i + k] | 0x20) << (8 * UInt64(k)) }
        switch word {
        case 0x6e_61_6e: return sign < 0 ? -Double.nan : Double.nan // "nan"
        case 0x66_6e_69, 0x79_74_69_6e_69_66_6e_69: return sign * Double.infinity // "inf", "infinity"
        default: return nil
        }
    }

    /// Reads `<date>` as the reader `options.dates` names does (see `XMLPlistDate`).
    mutating func readDate(selfClosing: Bool, openedAt: Int) throws -> Date {
        guard !selfClosing else { throw error(.invalidDate, "empty <date/>", at: openedAt) }
        let r = try readContent(closing: Tag.date, "date", openedAt: openedAt)
        let text = UnsafeBufferPointer(start: p + r.lowerBound, count: r.count)
        guard let seconds = XMLPlistDate.parse(text, mode: options.dates, strict: options.strict) else {
            let what = XMLPlistDate.scan(text) == nil ? "is not YYYY-MM-DDTHH:MM:SSZ" : "has a field out of range"
            throw error(.invalidDate, "<date> \(what)", at: r.lowerBound)
        }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    /// Reads `<data>`: base64 with any ASCII whitespace between characters. Characters outside the
    /// alphabet, misplaced `=` and a final group of fewer than 4 characters are `.invalidBase64`.
    mutating func readData(selfClosing: Bool, openedAt: Int) throws -> Data {
        if selfClosing { return Data() }
        let r = try readContent(closing: Tag.data, "data", openedAt: openedAt)
        var out = Data(count: r.count / 4 * 3 + 3)
        var written = 0
        var failure: (offset: Int, message: String)?
        Self.base64Table.withUnsafeBufferPointer { table in
            out.withUnsafeMutableBytes { raw in
                guard let dst = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                var acc: UInt32 = 0
                var inGroup = 0
                var padding = 0
                var finished = false
                var i = r.lowerBound
                var groupStart = i
                while i < r.upperBound {
                    // A whole group of four base64 characters, the usual case: no state to track.
                    if inGroup == 0, !finished, i + 4 <= r.upperBound {
                        let a = table[Int(p[i])], b = table[Int(p[i + 1])]
                        let c = table[Int(p[i + 2])], d = table[Int(p[i + 3])]
                        if a | b | c | d >= 0 {
                            let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                            dst[written] = UInt8(truncatingIfNeeded: n >> 16)
                            dst[written + 1] = UInt8(truncatingIfNeeded: n >> 8)
                            dst[written + 2] = UInt8(truncatingIfNeeded: n)
                            written += 3
                            i += 4
                            continue
                        }
                    }
                    let c = p[i]
                    let v = Self.base64Value(c)
                    if v < 0 {
                        if Self.isSpace(c) || c == 0x0C || c == 0x0B { i += 1; continue }
                        if c == UInt8(ascii: "=") && inGroup >= 2 {
                            padding += 1
                            acc <<= 6
                        } else {
                            failure = (i, c == UInt8(ascii: "=") ? "misplaced '=' in <data>" : "character outside base64 in <data>")
                            return
                        }
                    } else {
                        if finished || padding > 0 {
                            failure = (i, "base64 continues after '=' padding in <data>")
                            return
                        }
                        acc = acc << 6 | UInt32(v)
                    }
                    if inGroup == 0 { groupStart = i }
                    inGroup += 1
                    if inGroup == 4 {
                        dst[written] = UInt8(truncatingIfNeeded: acc >> 16)
                        if padding < 2 { dst[written + 1] = UInt8(truncatingIfNeeded: acc >> 8) }
                        if padding < 1 { dst[written + 2] = UInt8(truncatingIfNeeded: acc) }
                        written += 3 - padding
                        finished = padding > 0
                        padding = 0
                        inGroup = 0
                        acc = 0
                    }
                    i += 1
                }
                if inGroup != 0 { failure = (groupStart, "incomplete base64 group in <data>") }
            }
        }
        if let failure { throw error(.invalidBase64, failure.message, at: failure.offset) }
        out.count = written
        return out
    }

    /// `base64Value` of every byte, for the loop over whole groups.
    static let base64Table: [Int8] = (0...255).map { base64Value(UInt8($0)) }

    @inline(__always) static func base64Value(_ c: UInt8) -> Int8 {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return Int8(c &- UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return Int8(c &- UInt8(ascii: "a") &+ 26)
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int8(c &- UInt8(ascii: "0") &+ 52)
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return -1
        }
    }
}
