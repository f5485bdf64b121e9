import Foundation

/// Writes an `EncodingArena` as an XML property list, byte for byte as `PropertyListEncoder` does
/// (`XMLPlistWriter`'s `.foundation` layout): one element per line, one tab per level, dictionary
/// keys in Swift `String` order, only `&`, `<` and `>` escaped.
struct ArenaXMLWriter {
    let arena: EncodingArena
    // The arena's arrays, held here so that reading them costs no reference counting.
    private let nodes: [EncodingArena.Node]
    private let strings: [String]
    private let datas: [Data]
    private let text = XMLPlistWriter(mode: .foundation)

    init(arena: EncodingArena) {
        self.arena = arena
        nodes = arena.nodes
        strings = arena.strings
        datas = arena.datas
    }

    func write(root: Int32) throws -> Data {
        let out = ByteWriter(capacity: 4096 + nodes.count * 40)
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n")
        var scratch: [EncodingArena.Entry] = []
        try write(root, depth: 0, scratch: &scratch, to: out)
        out.append("</plist>\n")
        return out.data()
    }

    private func write(_ node: Int32, depth: Int, scratch: inout [EncodingArena.Entry], to out: ByteWriter) throws {
        let n = nodes[Int(node)]
        if n.kind == .isolated { return try write(n.first, depth: depth, scratch: &scratch, to: out) }
        out.append(repeating: 0x09, count: depth)
        switch n.kind {
        case .isolated: break
        case .null:
            out.append("<string>$null</string>\n")
        case .string:
            out.append("<string>")
            try text.writeEscaped(strings[Int(n.bits)], to: out)
            out.append("</string>\n")
        case .bool:
            out.append(n.bits != 0 ? "<true/>\n" : "<false/>\n")
        case .int:
            out.append("<integer>")
            out.appendDecimal(Int64(bitPattern: n.bits))
            out.append("</integer>\n")
        case .wideInt:
            out.append("<integer>")
            out.appendUTF8(arena.wideInts[Int(n.bits)].description)
            out.append("</integer>\n")
        case .float:
            writeReal(Double(Float(bitPattern: UInt32(truncatingIfNeeded: n.bits))), to: out)
        case .double:
            writeReal(Double(bitPattern: n.bits), to: out)
        case .date:
            let t = Double(bitPattern: n.bits)
            out.append("<date>")
            guard XMLDateFormat.write(secondsSinceReferenceDate: t, julianBeforeGregorian: true, to: out) else {
                throw PlistError(.unsupportedValue, "date \(t) seconds since 2001 cannot be written as an XML date")
            }
            out.append("</date>\n")
        case .data:
            out.append("<data>\n")
            Base64Lines.write(datas[Int(n.bits)], indent: min(depth, 8), to: out)
            out.append(repeating: 0x09, count: depth)
            out.append("</data>\n")
        case .array:
            let base = scratch.count
            arena.gather(node, into: &scratch)
            defer { scratch.removeSubrange(base...) }
            if scratch.count == base { out.append("<array/>\n"); return }
            out.append("<array>\n")
            for i in base..<scratch.count { try write(scratch[i].value, depth: depth + 1, scratch: &scratch, to: out) }
            out.append(repeating: 0x09, count: depth)
            out.append("</array>\n")
        case .dictionary:
            let base = scratch.count
            arena.gather(node, into: &scratch)
            defer { scratch.removeSubrange(base...) }
            if scratch.count == base { out.append("<dict/>\n"); return }
            out.append("<dict>\n")
            for i in arena.keyLists.prepareForXML(&scratch, from: base, arena: arena) {
                let entry = scratch[base + i]
                out.append(repeating: 0x09, count: depth + 1)
                out.append("<key>")
                try text.writeEscaped(strings[Int(entry.key)], to: out)
                out.append("</key>\n")
                try write(entry.value, depth: depth + 1, scratch: &scratch, to: out)
            }
            out.append(repeating: 0x09, count: depth)
            out.append("</dict>\n")
        }
    }

    private func writeReal(_ d: Double, to out: ByteWriter) {
        out.append("<real>")
        XMLRealText.writeFoundation(d, to: out)
        out.append("</real>\n")
    }
}
