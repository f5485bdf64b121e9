import Foundation

/// Writes a `bplist00` file as XML straight from its object table, in chunks, without a `PlistValue`
/// tree: the bytes `PlistValue(parsing:).serialized(as: .xml, mode:)` would give, in memory the size
/// of one chunk plus the input.
///
/// It is the sink of a second `BinaryPlistWalker` walk, after `BinaryPlistValidator` has checked the
/// file: it asks the walker to spell out every reference (as XML must), and for each dictionary it
/// takes the keys first, then has the values walked in the XML writer's key order (keys sorted), a
/// repeated key keeping its first position and last value as the reader keeps it, so the output
/// matches the tree path byte for byte.
///
/// ```swift
/// try BinaryToXMLStream.write(doc, mode: .coreFoundation, options: PlistReadOptions(), chunkSize: 1 << 20) { chunk in ... }
/// ```
struct BinaryToXMLStream: BinaryPlistSink {
    let writer: XMLPlistWriter
    let chunkSize: Int
    let emit: (Data) throws -> Void
    private var out: ByteWriter
    private let keyOrder = KeyOrderCache()
    private var open: [Container] = []

    private struct Container {
        var isDict: Bool
        /// Written as `<array/>` or `<dict/>`, with no closing tag.
        var isEmpty: Bool
        /// A dictionary's keys as the walker hands them, until its values start.
        var keys: [String] = []
        var collectingKeys: Bool
        /// The keys to write before the values, in the order the values come.
        var orderedKeys: [String] = []
        var nextKey = 0
    }

    /// Writes the whole document, header to `</plist>`, from a file `BinaryPlistValidator` accepted.
    static func write<Bytes>(_ doc: BinaryPlistFile<Bytes>, mode: PlistWriteMode, options: PlistReadOptions, chunkSize: Int,
                             emit: (Data) throws -> Void) throws {
        try withoutActuallyEscaping(emit) { emit in
            var stream = BinaryToXMLStream(mode: mode, chunkSize: chunkSize, emit: emit)
            stream.out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n")
            stream = try doc.walk(options, into: stream)
            stream.out.append("</plist>\n")
            try stream.flush(force: true)
        }
    }

    private init(mode: PlistWriteMode, chunkSize: Int, emit: @escaping (Data) throws -> Void) {
        self.writer = XMLPlistWriter(mode: mode)
        self.chunkSize = max(chunkSize, 4096)
        self.emit = emit
        out = ByteWriter(capacity: min(self.chunkSize + 4096, 1 << 22))
    }

    var expandsSharedObjects: Bool { true }

    mutating func scalar(_ value: PlistValue, object: Int) throws {
        if let last = open.indices.last, open[last].collectingKeys {
            // The walker has checked that keys are strings.
            if case .string(let key) = value { open[last].keys.append(key) }
            return
        }
        try writeKeyIfInDictionary()
        try writer.writeNode(PlistNode(value), depth: open.count, to: out)
        try finishedElement()
    }

    func shared(object: Int) {}

    mutating func openContainer(object: Int, isDictionary: Bool, count: Int) throws {
        try writeKeyIfInDictionary()
        indent(open.count)
        switch (isDictionary, count == 0) {
        case (false, true): out.append("<array/>\n")
        case (false, false): out.append("<array>\n")
        case (true, true): out.append("<dict/>\n")
        case (true, false): out.append("<dict>\n")
        }
        open.append(Container(isDict: isDictionary, isEmpty: count == 0, collectingKeys: isDictionary && count > 0))
    }

    /// The positions of the values to write: each distinct key's last value, in key order.
    mutating func valueOrder(count: Int) -> [Int] {
        let last = open.count - 1
        let keys = open[last].keys
        var entries: [(key: String, valuePosition: Int)] = []
        entries.reserveCapacity(count)
        // Repeated keys are rare: a linear check for small dictionaries, a hash table for large ones.
        var positions: [ExactString: Int]? = count > 16 ? [:] : nil
        for (i, key) in keys.enumerated() {
            let earlier: Int?
            if positions != nil {
                earlier = positions?[ExactString(value: key)]
                if earlier == nil { positions?[ExactString(value: key)] = entries.count }
            } else {
                earlier = entries.firstIndex { ExactString(value: $0.key) == ExactString(value: key) }
            }
            if let earlier {
                entries[earlier].valuePosition = i
            } else {
                entries.append((key, i))
            }
        }
        let order = keyOrder.order(for: entries.map { ($0.key, PlistNode.null) }, mode: writer.mode)
        open[last].keys = []
        open[last].collectingKeys = false
        open[last].orderedKeys = order.map { entries[$0].key }
        return order.map { entries[$0].valuePosition }
    }

    mutating func closeContainer(object: Int) throws {
        let container = open.removeLast()
        if !container.isEmpty {
            indent(open.count)
            out.append(container.isDict ? "</dict>\n" : "</array>\n")
        }
        try finishedElement()
    }

    /// Before a dictionary's value: its `<key>`.
    private mutating func writeKeyIfInDictionary() throws {
        guard let last = open.indices.last, open[last].isDict else { return }
        let key = open[last].orderedKeys[open[last].nextKey]
        open[last].nextKey += 1
        indent(open.count)
        out.append("<key>")
        try writer.writeEscaped(key, to: out)
        out.append("</key>\n")
    }

    /// After an element: hands a chunk on when one is ready, checking only near the top, where the
    /// elements are many and small enough.
    private mutating func finishedElement() throws {
        if open.count >= 1, open.count <= 2 { try flush(force: false) }
    }

    private mutating func flush(force: Bool) throws {
        guard out.count > 0, force || out.count >= chunkSize else { return }
        try emit(out.data())
        out = ByteWriter(capacity: min(chunkSize + 4096, 1 << 22))
    }

    private func indent(_ depth: Int) {
        out.append(repeating: 0x09, count: depth)
    }
}
