import Foundation

/// Writes a `PlistValue` as an XML property list straight into one growing byte buffer, in the
/// layout `XMLPlistWriter` gives (and so `PropertyListEncoder` or CoreFoundation): one element per
/// line, one tab per level, dictionary keys sorted, only `&`, `<` and `>` escaped.
///
/// It is the `serialized(as: .xml)` path. Going through `PlistNode` cost an object per container and
/// a second copy of the tree; here the value is read where it is. Dictionaries whose keys repeat
/// (every record of one type) are sorted and escaped once, at each depth, by `XMLKeyListCache`.
struct ValueXMLWriter {
    let mode: PlistWriteMode
    private let out: ByteWriter
    private let keyLists: XMLKeyListCache

    /// The bytes of `value` as an XML property list.
    ///
    /// - Throws: `PlistError` with kind `.unsupportedValue` for a date that XML cannot spell.
    static func write(_ value: PlistValue, mode: PlistWriteMode) throws -> Data {
        let writer = ValueXMLWriter(mode: mode, out: ByteWriter(capacity: 1 << 16), keyLists: XMLKeyListCache(mode: mode))
        writer.out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n")
        try withUnsafePointer(to: value) { try writer.write($0, depth: 0) }
        writer.out.append("</plist>\n")
        return writer.out.data()
    }

    /// Writes the value at `value`. Reading it through a pointer lets the switch take only the
    /// payload it needs instead of copying the whole enum (and retaining it) for each element.
    private func write(_ value: UnsafePointer<PlistValue>, depth: Int) throws {
        switch value.pointee {
        case .string(let s):
            writeString(s, depth: depth)
        case .integer(let i):
            if i.isWide {
                writeLine(depth, "<integer>", i.value.description, "</integer>\n")
            } else {
                out.withUnsafeSpace(depth + 40) { p in
                    var o = Self.tabs(depth, p)
                    o += Self.put("<integer>", p + o)
                    o += Self.decimal(Int64(truncatingIfNeeded: i.value), p + o)
                    return o + Self.put("</integer>\n", p + o)
                }
            }
        case .real(let d):
            writeReal(d, depth: depth)
        case .float(let f):
            writeReal(Double(f), depth: depth)
        case .bool(let b):
            out.withUnsafeSpace(depth + 9) { p in
                let o = Self.tabs(depth, p)
                return o + (b ? Self.put("<true/>\n", p + o) : Self.put("<false/>\n", p + o))
            }
        case .date(let date):
            let t = date.timeIntervalSinceReferenceDate
            let foundation = mode == .foundation
            var written = true
            out.withUnsafeSpace(depth + 14 + XMLDateFormat.maxLength) { p in
                var o = Self.tabs(depth, p)
                o += Self.put("<date>", p + o)
                guard let n = XMLDateFormat.write(secondsSinceReferenceDate: t, julianBeforeGregorian: foundation, to: p + o) else {
                    written = false
                    return 0
                }
                return o + n + Self.put("</date>\n", p + o + n)
            }
            guard written else {
                throw PlistError(.unsupportedValue, "date \(t) seconds since 2001 cannot be written as an XML date")
            }
        case .data(let d):
            out.append(repeating: 0x09, count: depth)
            out.append("<data>\n")
            Base64Lines.write(d, indent: min(depth, 8), to: out)
            out.append(repeating: 0x09, count: depth)
            out.append("</data>\n")
        case .uid(let u):
            out.append(repeating: 0x09, count: depth)
            out.append("<dict>\n")
            out.append(repeating: 0x09, count: depth + 1)
            out.append("<key>CF$UID</key>\n")
            writeLine(depth + 1, "<integer>", String(u), "</integer>\n")
            out.append(repeating: 0x09, count: depth)
            out.append("</dict>\n")
        case .array(let items):
            out.append(repeating: 0x09, count: depth)
            if items.isEmpty { out.append("<array/>\n"); return }
            out.append("<array>\n")
            try items.withUnsafeBufferPointer { items in
                guard let first = items.baseAddress else { return }
                for i in items.indices { try write(first + i, depth: depth + 1) }
            }
            out.append(repeating: 0x09, count: depth)
            out.append("</array>\n")
        case .dictionary(let dict):
            out.append(repeating: 0x09, count: depth)
            if dict.keys.isEmpty { out.append("<dict/>\n"); return }
            out.append("<dict>\n")
            let list = keyLists.list(for: dict.keys, depth: depth + 1)
            try list.text.withUnsafeBytes { text in
                try list.ends.withUnsafeBufferPointer { ends in
                    try list.order.withUnsafeBufferPointer { order in
                        try dict.values.withUnsafeBufferPointer { values in
                            guard let first = values.baseAddress else { return }
                            var start = 0
                            for j in order.indices {
                                // Each key's text already holds its indentation and line break.
                                out.append(UnsafeRawBufferPointer(rebasing: text[start..<ends[j]]))
                                start = ends[j]
                                try write(first + order[j], depth: depth + 1)
                            }
                        }
                    }
                }
            }
            out.append(repeating: 0x09, count: depth)
            out.append("</dict>\n")
        }
    }

    /// `depth` tabs, `open`, `text` (not escaped), `close`.
    private func writeLine(_ depth: Int, _ open: StaticString, _ text: String, _ close: StaticString) {
        out.append(repeating: 0x09, count: depth)
        out.append(open)
        out.appendUTF8(text)
        out.append(close)
    }

    private func writeString(_ s: String, depth: Int) {
        func write(_ bytes: UnsafeBufferPointer<UInt8>) {
            // Room for the worst case (every byte escaped as `&amp;`), so the loop checks nothing.
            out.withUnsafeSpace(depth + bytes.count * 5 + 18) { p in
                var o = Self.tabs(depth, p)
                o += Self.put("<string>", p + o)
                o += XMLEscaping.write(bytes, to: p + o)
                return o + Self.put("</string>\n", p + o)
            }
        }
        if s.utf8.withContiguousStorageIfAvailable(write) == nil {
            var s = s
            s.withUTF8(write)
        }
    }

    private func writeReal(_ d: Double, depth: Int) {
        out.append(repeating: 0x09, count: depth)
        out.append("<real>")
        switch mode {
        case .foundation: XMLRealText.writeFoundation(d, to: out)
        case .coreFoundation: out.appendUTF8(XMLPlistWriter.realText(d, mode: .coreFoundation))
        }
        out.append("</real>\n")
    }

    @inline(__always)
    private static func tabs(_ n: Int, _ p: UnsafeMutablePointer<UInt8>) -> Int {
        // Usually a tab or two: cheaper than a call to memset.
        for i in 0..<n { p[i] = 0x09 }
        return n
    }

    @inline(__always)
    private static func put(_ s: StaticString, _ p: UnsafeMutablePointer<UInt8>) -> Int {
        UnsafeMutableRawPointer(p).copyMemory(from: s.utf8Start, byteCount: s.utf8CodeUnitCount)
        return s.utf8CodeUnitCount
    }

    /// `v` in decimal at `p` (room for 20 bytes); returns the length.
    @inline(__always)
    private static func decimal(_ v: Int64, _ p: UnsafeMutablePointer<UInt8>) -> Int {
        var magnitude = v.magnitude
        var length = v < 0 ? 2 : 1
        var probe = magnitude
        while probe >= 10 { probe /= 10; length += 1 }
        var i = length
        repeat {
            i -= 1
            p[i] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
            magnitude /= 10
        } while magnitude > 0
        if v < 0 { p[0] = UInt8(ascii: "-") }
        return length
    }

}

/// Escaping of XML text as Apple's writers do it: `&`, `<` and `>` only; every other byte (control
/// characters and NUL included) is written as it is.
enum XMLEscaping {
    /// Writes `bytes` escaped at `p`, which has room for `5 * bytes.count`; returns how many it wrote.
    @inline(__always)
    static func write(_ bytes: UnsafeBufferPointer<UInt8>, to p: UnsafeMutablePointer<UInt8>) -> Int {
        guard let source = bytes.baseAddress else { return 0 }
        // Most text needs no escape: find the first 8-byte word that might, and copy what is before it.
        var clean = 0
        while clean + 8 <= bytes.count {
            let word = UnsafeRawPointer(source + clean).loadUnaligned(as: UInt64.self)
            if hasByte(word, UInt8(ascii: "&")) || hasByte(word, UInt8(ascii: "<")) || hasByte(word, UInt8(ascii: ">")) { break }
            clean += 8
        }
        p.update(from: source, count: clean)
        var o = clean
        for b in UnsafeBufferPointer(rebasing: bytes[clean...]) {
            // One comparison rules out every byte but the three that need escaping.
            if b > UInt8(ascii: ">") || (b != UInt8(ascii: "&") && b < UInt8(ascii: "<")) || b == UInt8(ascii: "=") {
                p[o] = b
                o += 1
                continue
            }
            let replacement: StaticString
            switch b {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            default: replacement = "&gt;"
            }
            UnsafeMutableRawPointer(p + o).copyMemory(from: replacement.utf8Start, byteCount: replacement.utf8CodeUnitCount)
            o += replacement.utf8CodeUnitCount
        }
        return o
    }

    /// Whether any of the eight bytes of `word` is `byte`.
    @inline(__always)
    private static func hasByte(_ word: UInt64, _ byte: UInt8) -> Bool {
        let x = word ^ (0x0101_0101_0101_0101 &* UInt64(byte))
        return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 != 0
    }

    /// `s` escaped, as bytes.
    static func bytes(_ s: String) -> [UInt8] {
        var s = s
        return s.withUTF8 { bytes in
            [UInt8](unsafeUninitializedCapacity: bytes.count * 5) { buffer, count in
                count = write(bytes, to: buffer.baseAddress!)
            }
        }
    }
}

/// The text of a `<real>` in `PropertyListEncoder`'s layout, written without building a `String`.
enum XMLRealText {
    /// Swift's shortest round-trip form (`description`), without a trailing `.0`; `+infinity`,
    /// `-infinity` and `nan`.
    static func writeFoundation(_ d: Double, to out: ByteWriter) {
        if d.isInfinite {
            out.append(d > 0 ? "+infinity" : "-infinity")
            return
        }
        // `write(to:)` spells a NaN's sign and payload (`-nan(0x1)`, `snan`); `description`, which
        // `PropertyListEncoder` writes, says `nan` for every one.
        if d.isNaN {
            out.append("nan")
            return
        }
        var sink = Sink(out: out)
        d.write(to: &sink)
    }

    /// `Double.write(to:)` hands its digits to `_writeASCII` from a stack buffer, so no string is
    /// made; `write(_:)` is what any other `TextOutputStream` path would call, and gives the same.
    private struct Sink: TextOutputStream {
        let out: ByteWriter

        mutating func write(_ string: String) {
            var s = string
            s.withUTF8 { _writeASCII($0) }
        }

        mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
            let n = buffer.count
            let dropZero = n >= 2 && buffer[n - 2] == UInt8(ascii: ".") && buffer[n - 1] == UInt8(ascii: "0")
            out.append(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<(dropZero ? n - 2 : n)]))
        }
    }
}
