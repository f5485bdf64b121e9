import Foundation

/// Writes XML property lists, byte for byte as `PropertyListEncoder` (`.foundation`) or
/// CoreFoundation (`.coreFoundation`) writes them: one element per line, one tab per level,
/// dictionary keys sorted, only `&`, `<` and `>` escaped.
struct XMLPlistWriter {
    let mode: PlistWriteMode
    /// Dictionaries of one Codable type share their key list; their sorted order is computed once.
    private let keyOrder = KeyOrderCache()

    init(mode: PlistWriteMode) {
        self.mode = mode
    }

    func write(_ root: PlistNode) throws -> Data {
        let out = ByteWriter(capacity: 4096)
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n")
        try writeNode(root, depth: 0, to: out)
        out.append("</plist>\n")
        return out.data()
    }

    private func indent(_ depth: Int, _ out: ByteWriter) {
        out.append(repeating: 0x09, count: depth)
    }

    func writeNode(_ node: PlistNode, depth: Int, to out: ByteWriter) throws {
        if case .isolated(let inner) = node { return try writeNode(inner, depth: depth, to: out) }
        indent(depth, out)
        switch node {
        case .isolated: break
        case .null:
            out.append("<string>$null</string>\n")
        case .string(let s):
            out.append("<string>")
            try writeEscaped(s, to: out)
            out.append("</string>\n")
        case .bool(let b):
            out.append(b ? "<true/>\n" : "<false/>\n")
        case .int(let v):
            out.append("<integer>")
            out.appendDecimal(v)
            out.append("</integer>\n")
        case .wideInt(let v):
            out.append("<integer>")
            out.appendUTF8(v.description)
            out.append("</integer>\n")
        case .float(let f):
            try writeReal(Double(f), to: out)
        case .double(let d):
            try writeReal(d, to: out)
        case .date(let t):
            out.append("<date>")
            guard XMLDateFormat.write(secondsSinceReferenceDate: t, julianBeforeGregorian: mode == .foundation, to: out) else {
                throw PlistError(.unsupportedValue, "date \(t) seconds since 2001 cannot be written as an XML date")
            }
            out.append("</date>\n")
        case .data(let d):
            out.append("<data>\n")
            Base64Lines.write(d, indent: min(depth, 8), to: out)
            indent(depth, out)
            out.append("</data>\n")
        case .uid(let u):
            out.append("<dict>\n")
            indent(depth + 1, out)
            out.append("<key>CF$UID</key>\n")
            indent(depth + 1, out)
            out.append("<integer>")
            out.appendUTF8(String(u))
            out.append("</integer>\n")
            indent(depth, out)
            out.append("</dict>\n")
        case .array(let box):
            if box.items.isEmpty { out.append("<array/>\n"); return }
            out.append("<array>\n")
            for item in box.items { try writeNode(item, depth: depth + 1, to: out) }
            indent(depth, out)
            out.append("</array>\n")
        case .dictionary(let box):
            if box.count == 0 { out.append("<dict/>\n"); return }
            out.append("<dict>\n")
            let entries = box.entries
            for i in keyOrder.order(for: entries, mode: mode) {
                indent(depth + 1, out)
                out.append("<key>")
                try writeEscaped(entries[i].key, to: out)
                out.append("</key>\n")
                try writeNode(entries[i].value, depth: depth + 1, to: out)
            }
            indent(depth, out)
            out.append("</dict>\n")
        }
    }

    private func writeReal(_ d: Double, to out: ByteWriter) throws {
        out.append("<real>")
        switch mode {
        case .foundation: XMLRealText.writeFoundation(d, to: out)
        case .coreFoundation: out.appendUTF8(Self.realText(d, mode: mode))
        }
        out.append("</real>\n")
    }

    /// The text of a `<real>`: Swift's shortest round-trip form without a trailing `.0` for
    /// Foundation, `%.17g` for CoreFoundation.
    static func realText(_ d: Double, mode: PlistWriteMode) -> String {
        if d.isInfinite { return d > 0 ? "+infinity" : "-infinity" }
        switch mode {
        case .foundation:
            var s = d.description
            if s.hasSuffix(".0") { s.removeLast(2) }
            return s
        case .coreFoundation:
            if d.isNaN { return "nan" }
            if d == 0 { return "0.0" }
            return String(format: "%.17g", d)
        }
    }

    /// Escapes `&`, `<` and `>`. Like Apple's writers, every other character is written as it is,
    /// control characters and NUL included (Apple's readers read them back).
    func writeEscaped(_ s: String, to out: ByteWriter) throws {
        func write(_ bytes: UnsafeBufferPointer<UInt8>) {
            out.withUnsafeSpace(bytes.count * 5) { XMLEscaping.write(bytes, to: $0) }
        }
        if s.utf8.withContiguousStorageIfAvailable(write) == nil {
            var s = s
            s.withUTF8(write)
        }
    }
}

/// Sorted key order for XML dictionaries, remembering the last few key lists it sorted (dictionaries
/// of one Codable type share their key list, and nested types alternate).
final class KeyOrderCache {
    private var recent: [(keys: [String], order: [Int])] = []
    private var next = 0

    /// Indices of `entries` in key order: Swift `String` order for Foundation, UTF-16 code-unit order
    /// for CoreFoundation.
    func order(for entries: [(key: String, value: PlistNode)], mode: PlistWriteMode) -> [Int] {
        let n = entries.count
        if n < 2 { return Array(0..<n) }
        search: for slot in recent where slot.keys.count == n {
            // By bytes: `String`'s == equates keys that differ only in normalization, which are
            // different keys here, and may sort differently.
            for i in 0..<n where !entries[i].key.utf8.elementsEqual(slot.keys[i].utf8) { continue search }
            return slot.order
        }
        let keys = entries.map(\.key)
        let order: [Int]
        switch mode {
        case .foundation:
            order = keys.indices.sorted { keys[$0] < keys[$1] }
        case .coreFoundation:
            order = keys.indices.sorted { keys[$0].utf16.lexicographicallyPrecedes(keys[$1].utf16) }
        }
        if recent.count < 8 {
            recent.append((keys, order))
        } else {
            recent[next] = (keys, order)
            next = (next + 1) % 8
        }
        return order
    }
}

/// Base64 in the layout both Apple writers use inside `<data>`: lines of `76 - 8k` characters,
/// each indented by `k` tabs (`k` = the element's depth, at most 8).
enum Base64Lines {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func write(_ data: Data, indent k: Int, to out: ByteWriter) {
        let lineChars = 76 - 8 * k
        let bytesPerLine = lineChars / 4 * 3
        alphabet.withUnsafeBufferPointer { table in
            data.withUnsafeBytes { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                var pos = 0
                while pos < bytes.count {
                    let end = min(pos + bytesPerLine, bytes.count)
                    out.append(repeating: 0x09, count: k)
                    out.withUnsafeSpace((end - pos + 2) / 3 * 4 + 1) { p in
                        var o = 0
                        var i = pos
                        while i + 3 <= end {
                            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                            p[o] = table[Int(n >> 18)]
                            p[o + 1] = table[Int(n >> 12 & 0x3F)]
                            p[o + 2] = table[Int(n >> 6 & 0x3F)]
                            p[o + 3] = table[Int(n & 0x3F)]
                            o += 4
                            i += 3
                        }
                        if end - i == 1 {
                            let n = UInt32(bytes[i]) << 16
                            p[o] = table[Int(n >> 18)]; p[o + 1] = table[Int(n >> 12 & 0x3F)]
                            p[o + 2] = UInt8(ascii: "="); p[o + 3] = UInt8(ascii: "=")
                            o += 4
                        } else if end - i == 2 {
                            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
                            p[o] = table[Int(n >> 18)]; p[o + 1] = table[Int(n >> 12 & 0x3F)]
                            p[o + 2] = table[Int(n >> 6 & 0x3F)]; p[o + 3] = UInt8(ascii: "=")
                            o += 4
                        }
                        p[o] = 0x0A
                        return o + 1
                    }
                    pos = end
                }
            }
        }
    }
}
