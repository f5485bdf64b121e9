import Foundation

/// Text-input plumbing shared by the XML and OpenStep readers: byte-order marks, UTF-16 input, and
/// turning a byte offset into the 1-based line and column that errors report.
///
/// Readers scan UTF-8 bytes and remember only byte offsets; a line and column are computed from an
/// offset when an error is thrown, so the fast path never counts lines.
///
/// Columns count **bytes** of UTF-8 text, starting at 1. Lines end at `\n`, `\r\n` or a lone `\r`.
/// Offsets are relative to the text after any byte-order mark; UTF-16 input is transcoded to UTF-8
/// first, so its columns count bytes of that UTF-8 text (its lines are unaffected).
enum TextCursor {
    /// Calls `body` with the UTF-8 text of `data` and its start address (never `nil`, even when the
    /// text is empty).
    ///
    /// A UTF-8 byte-order mark is skipped. UTF-16 with a byte-order mark (either endianness) is
    /// transcoded to UTF-8 first; an unpaired surrogate in it is an `.invalidString` error.
    static func withUTF8Text<R>(
        _ data: Data, _ body: (UnsafeBufferPointer<UInt8>, UnsafePointer<UInt8>) throws -> R
    ) throws -> R {
        func call(_ bytes: UnsafeBufferPointer<UInt8>) throws -> R {
            if let base = bytes.baseAddress { return try body(bytes, base) }
            var zero: UInt8 = 0
            return try withUnsafePointer(to: &zero) { try body(UnsafeBufferPointer(start: $0, count: 0), $0) }
        }
        let first = data.first, second = data.dropFirst().first
        if (first == 0xFE && second == 0xFF) || (first == 0xFF && second == 0xFE) {
            let utf8 = try transcodeUTF16(data.dropFirst(2), bigEndian: first == 0xFE)
            return try utf8.withUnsafeBufferPointer(call)
        }
        return try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
                return try call(UnsafeBufferPointer(rebasing: bytes[3...]))
            }
            return try call(bytes)
        }
    }

    /// Transcodes UTF-16 code units (after the byte-order mark) to UTF-8.
    static func transcodeUTF16(_ bytes: Data.SubSequence, bigEndian: Bool) throws -> [UInt8] {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            let a = UInt16(bytes[index]), b = UInt16(bytes[index + 1])
            units.append(bigEndian ? a << 8 | b : b << 8 | a)
            index += 2
        }
        var out: [UInt8] = []
        out.reserveCapacity(units.count * 3)
        var failedAt: Int?
        var unitIndex = 0
        var decoder = UTF16()
        var iterator = units.makeIterator()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                unitIndex += scalar.value > 0xFFFF ? 2 : 1
                UTF8.encode(scalar) { out.append($0) }
            case .emptyInput:
                break loop
            case .error:
                failedAt = unitIndex
                break loop
            }
        }
        if let failedAt {
            let here = out.withUnsafeBufferPointer { TextCursor.location(of: $0.count, in: $0) }
            throw PlistError(.invalidString, "invalid UTF-16 (unpaired surrogate at code unit \(failedAt))",
                             at: here)
        }
        if index < bytes.endIndex {
            let here = out.withUnsafeBufferPointer { TextCursor.location(of: $0.count, in: $0) }
            throw PlistError(.invalidString, "UTF-16 text has an odd number of bytes", at: here)
        }
        return out
    }

    /// The 1-based line and byte column of `offset` in `text`.
    static func location(of offset: Int, in text: UnsafeBufferPointer<UInt8>) -> PlistError.Location {
        let end = min(max(offset, 0), text.count)
        var line = 1
        var lineStart = 0
        var i = 0
        while i < end {
            let c = text[i]
            if c == 0x0A {
                line += 1
                lineStart = i + 1
            } else if c == 0x0D {
                if i + 1 < text.count, text[i + 1] == 0x0A {
                    if i + 1 == end { break } // the offset is the LF of a CRLF: same line as the CR
                    i += 1
                }
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        return .line(line, column: end - lineStart + 1)
    }

    /// The offset of the first byte in `text[range]` that does not start or continue valid UTF-8,
    /// or `nil` if the range is valid.
    static func firstInvalidUTF8(in text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        var i = range.lowerBound
        let end = range.upperBound
        guard let base = text.baseAddress else { return nil }
        while i < end {
            // Skip ASCII eight bytes at a time.
            while i + 8 <= end,
                  UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
            }
            guard i < end else { break }
            let c = text[i]
            if c < 0x80 { i += 1; continue }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return i
            }
            guard i + length <= end else { return i }
            let second = text[i + 1]
            guard second >= low, second <= high else { return i }
            var k = 2
            while k < length {
                guard text[i + k] & 0xC0 == 0x80 else { return i }
                k += 1
            }
            i += length
        }
        return nil
    }

    /// Makes a `String` from valid UTF-8 bytes, or returns the offset of the first invalid byte.
    static func makeString(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Result<String, InvalidUTF8> {
        // `String(validating:as:)` is generic and slow here; check first, then decode (which cannot
        // repair anything because nothing is invalid).
        if let bad = firstInvalidUTF8(in: text, range) { return .failure(InvalidUTF8(offset: bad)) }
        return .success(String(decoding: UnsafeBufferPointer(rebasing: text[range]), as: UTF8.self))
    }

    /// Where a byte sequence stops being valid UTF-8.
    struct InvalidUTF8: Error {
        /// The offset of the first invalid byte.
        var offset: Int
    }
}
