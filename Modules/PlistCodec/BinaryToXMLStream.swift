import Foundation

/// Writes a `bplist00` file as XML straight from its object table, in chunks, without a `PlistValue`
/// tree: the bytes `PlistValue(parsing:).serialized(as: .xml, mode:)` would give, in memory the size
/// of one chunk plus the input.
///
/// The caller validates the file first (`BinaryPlistValidator`); this walk then only decodes.
/// Dictionaries follow the reader's rules (a repeated key keeps its first position and last value)
/// and the XML writer's order (keys sorted), so the output matches the tree path byte for byte.
struct BinaryToXMLStream<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
    let doc: BinaryPlistFile<Bytes>
    let writer: XMLPlistWriter
    let chunkSize: Int
    let emit: (Data) throws -> Void
    private var out: ByteWriter
    private let keyOrder = KeyOrderCache()

    init(doc: BinaryPlistFile<Bytes>, mode: PlistWriteMode, chunkSize: Int, emit: @escaping (Data) throws -> Void) {
        self.doc = doc
        self.writer = XMLPlistWriter(mode: mode)
        self.chunkSize = max(chunkSize, 4096)
        self.emit = emit
        out = ByteWriter(capacity: min(self.chunkSize + 4096, 1 << 22))
    }

    /// Writes the whole document, header to `</plist>`.
    mutating func write() throws {
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n")
        try node(doc.topObject, depth: 0)
        out.append("</plist>\n")
        try flush(force: true)
    }

    private mutating func flush(force: Bool) throws {
        guard out.count > 0, force || out.count >= chunkSize else { return }
        try emit(out.data())
        out = ByteWriter(capacity: min(chunkSize + 4096, 1 << 22))
    }

    private func indent(_ depth: Int) {
        out.append(repeating: 0x09, count: depth)
    }

    private mutating func node(_ index: Int, depth: Int) throws {
        let offset = try doc.offset(of: index, referencedAt: 0)
        let marker = doc.bytes[offset]
        let high = marker >> 4
        guard high == 0xA || high == 0xD else {
            try writer.writeNode(PlistNode(BinaryScalar.read(doc, at: offset)), depth: depth, to: out)
            return
        }
        let (count, start) = try doc.count(nibble: marker & 0x0F, markerAt: offset)
        if high == 0xA {
            indent(depth)
            if count == 0 { out.append("<array/>\n"); return }
            out.append("<array>\n")
            for i in 0..<count {
                try node(doc.ref(at: start, i), depth: depth + 1)
                if depth < 2 { try flush(force: false) }
            }
            indent(depth)
            out.append("</array>\n")
            return
        }
        let entries = try dictionaryEntries(count: count, refsAt: start)
        indent(depth)
        if entries.isEmpty { out.append("<dict/>\n"); return }
        out.append("<dict>\n")
        for entry in entries {
            indent(depth + 1)
            out.append("<key>")
            try writer.writeEscaped(entry.key, to: out)
            out.append("</key>\n")
            try node(entry.valueRef, depth: depth + 1)
            if depth < 2 { try flush(force: false) }
        }
        indent(depth)
        out.append("</dict>\n")
    }

    /// A dictionary's keys with their value references, duplicates merged as the reader merges them
    /// and sorted as the XML writer sorts them.
    private func dictionaryEntries(count: Int, refsAt start: Int) throws -> [(key: String, valueRef: Int)] {
        var entries: [(key: String, valueRef: Int)] = []
        entries.reserveCapacity(count)
        // Repeated keys are rare: a linear check for small dictionaries, a hash table for large ones.
        var positions: [ExactString: Int]? = count > 16 ? [:] : nil
        for i in 0..<count {
            let keyOffset = try doc.offset(of: doc.ref(at: start, i), referencedAt: 0)
            guard case .string(let key) = try BinaryScalar.read(doc, at: keyOffset) else {
                throw PlistError(.malformed, "binary plist: dictionary key \(i) is not a string", at: .byte(keyOffset))
            }
            let valueRef = doc.ref(at: start, count + i)
            let earlier: Int?
            if positions != nil {
                earlier = positions?[ExactString(value: key)]
                if earlier == nil { positions?[ExactString(value: key)] = entries.count }
            } else {
                earlier = entries.firstIndex { ExactString(value: $0.key) == ExactString(value: key) }
            }
            if let earlier {
                entries[earlier].valueRef = valueRef
            } else {
                entries.append((key, valueRef))
            }
        }
        let order = keyOrder.order(for: entries.map { ($0.key, PlistNode.null) }, mode: writer.mode)
        return order.map { entries[$0] }
    }
}
