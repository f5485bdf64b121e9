import Foundation

/// `FlatDecoder`'s view of an XML property list: one flat entry per element, built by
/// `XMLPlistScanner` as the sink of a single scan, so decoding never builds a `PlistValue` tree.
///
/// Nodes live in one array; a container's entries are a run of node numbers in `children` (a
/// dictionary's keys, then its values), strings and data in arrays of their own. What the tree
/// reader makes of a document, this index says too: `<dict><key>CF$UID</key><integer>n</integer></dict>`
/// is a UID, and a repeated key keeps its first position and its last value when decoded.
final class XMLDecodingIndex: PlistDecodingStore {
    private struct Node {
        var kind: FlatKind
        /// Integers: the value is in `wideIntegers` (beyond `Int64`). Dictionaries: keys are simple.
        var flag: Bool
        /// Containers: the entry count.
        var count: Int32
        /// Bits of the scalar; the index of a string, data or wide integer; a container's first
        /// entry in `children`.
        var payload: UInt64
    }

    @exclusivity(unchecked) private var nodes: [Node] = []
    @exclusivity(unchecked) private var children: [Int32] = []
    @exclusivity(unchecked) private var strings: [String] = []
    @exclusivity(unchecked) private var datas: [Data] = []
    @exclusivity(unchecked) private var wideIntegers: [Int128] = []
    /// The document's root node, once its element has closed.
    @exclusivity(unchecked) private(set) var root = -1

    // While scanning: the nodes of open containers' finished entries, and each open container.
    @exclusivity(unchecked) private var pendingValues: [Int32] = []
    @exclusivity(unchecked) private var pendingKeys: [Int32] = []
    @exclusivity(unchecked) private var open: [(node: Int, valueStart: Int, keyStart: Int)] = []
    /// Recent key lists by their strings' raw bits (a string in `strings` stays alive, so equal
    /// bits mean equal strings), and whether each was simple.
    @exclusivity(unchecked) private var recentKeyLists: [(bits: [UInt64], simple: Bool)] = []
    @exclusivity(unchecked) private var nextKeyList = 0

    init(capacityHint bytes: Int) {
        // About one element per 24 bytes of typical XML.
        nodes.reserveCapacity(bytes / 24)
        children.reserveCapacity(bytes / 24)
    }

    // MARK: Building

    private func append(_ kind: FlatKind, _ payload: UInt64, flag: Bool = false, count: Int32 = 0) -> Int {
        nodes.append(Node(kind: kind, flag: flag, count: count, payload: payload))
        return nodes.count - 1
    }

    private func appendString(_ s: String) -> Int {
        strings.append(s)
        return append(.string, UInt64(strings.count - 1))
    }

    /// Adds a scalar (or an empty container) and returns its node.
    private func add(_ value: PlistValue) -> Int {
        switch value {
        case .string(let s): return appendString(s)
        case .integer(let i):
            if let small = Int64(exactly: i.value) { return append(.integer, UInt64(bitPattern: small)) }
            wideIntegers.append(i.value)
            return append(.integer, UInt64(wideIntegers.count - 1), flag: true)
        case .real(let d): return append(.real, d.bitPattern)
        case .float(let f): return append(.real, Double(f).bitPattern)
        case .bool(let b): return append(.bool, b ? 1 : 0)
        case .date(let d): return append(.date, d.timeIntervalSinceReferenceDate.bitPattern)
        case .data(let d):
            datas.append(d)
            return append(.data, UInt64(datas.count - 1))
        case .uid(let u): return append(.uid, u)
        case .array(let items):
            let entries = items.map { Int32(add($0)) }
            return appendContainer(.array, entries, count: entries.count, simple: false)
        case .dictionary(let dict):
            var entries = dict.keys.map { Int32(appendString($0)) }
            entries += dict.values.map { Int32(add($0)) }
            let simple = simpleKeys(entries[0..<dict.count])
            return appendContainer(.dictionary, entries, count: dict.count, simple: simple)
        }
    }

    private func appendContainer(_ kind: FlatKind, _ entries: [Int32], count: Int, simple: Bool) -> Int {
        let start = children.count
        children.append(contentsOf: entries)
        return append(kind, UInt64(start), flag: simple, count: Int32(count))
    }

    private func finished(_ node: Int) {
        if open.isEmpty { root = node } else { pendingValues.append(Int32(node)) }
    }

    /// Whether the key nodes are all ASCII and all different, so a name matches at most one key,
    /// by its bytes.
    private func simpleKeys(_ keyNodes: ArraySlice<Int32>) -> Bool {
        let n = keyNodes.count
        guard n <= 32 else { return computeSimpleKeys(keyNodes) }
        // Records of one type repeat one key list; short keys are inline strings, whose raw bits
        // are their bytes, so a list seen before is recognised by comparing bits.
        search: for entry in recentKeyLists where entry.bits.count == 2 * n {
            var i = 0
            for node in keyNodes {
                let b = unsafeBitCast(strings[Int(nodes[Int(node)].payload)], to: (UInt64, UInt64).self)
                if entry.bits[i] != b.0 || entry.bits[i + 1] != b.1 { continue search }
                i += 2
            }
            return entry.simple
        }
        let simple = computeSimpleKeys(keyNodes)
        var bits: [UInt64] = []
        bits.reserveCapacity(2 * n)
        for node in keyNodes {
            let b = unsafeBitCast(strings[Int(nodes[Int(node)].payload)], to: (UInt64, UInt64).self)
            bits.append(b.0)
            bits.append(b.1)
        }
        if recentKeyLists.count < 4 { recentKeyLists.append((bits, simple)) } else {
            recentKeyLists[nextKeyList] = (bits, simple)
            nextKeyList = (nextKeyList + 1) & 3
        }
        return simple
    }

    private func computeSimpleKeys(_ keyNodes: ArraySlice<Int32>) -> Bool {
        for node in keyNodes {
            for b in strings[Int(nodes[Int(node)].payload)].utf8 where b >= 0x80 { return false }
        }
        if keyNodes.count <= 16 {
            var i = keyNodes.startIndex
            while i < keyNodes.endIndex {
                let a = strings[Int(nodes[Int(keyNodes[i])].payload)]
                var j = i + 1
                while j < keyNodes.endIndex {
                    if a == strings[Int(nodes[Int(keyNodes[j])].payload)] { return false }
                    j += 1
                }
                i += 1
            }
            return true
        }
        return Set(keyNodes.map { strings[Int(nodes[Int($0)].payload)] }).count == keyNodes.count
    }

    // MARK: Reading

    func kind(_ node: Int) -> FlatKind { nodes[node].kind }

    func container(_ node: Int) -> FlatContainer {
        FlatContainer(start: Int(nodes[node].payload), count: Int(nodes[node].count))
    }

    @inline(__always)
    func element(_ container: FlatContainer, _ i: Int) -> Int { Int(children[container.start + i]) }

    func keysAreSimple(_ node: Int, _ container: FlatContainer) -> Bool { nodes[node].flag }

    func asciiKey(_ node: Int, equals name: String, bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let key = strings[Int(nodes[node].payload)]
        // The same raw bits are the same string (short keys are inline, so equal ones match here).
        if unsafeBitCast(key, to: (UInt64, UInt64).self) == unsafeBitCast(name, to: (UInt64, UInt64).self) { return true }
        let utf8 = key.utf8
        guard utf8.count == bytes.count else { return false }
        return utf8.elementsEqual(bytes)
    }

    func sameString(_ a: Int, _ b: Int) -> Bool { ExactKey.same(string(a), string(b)) }

    func isNullMarker(_ node: Int) -> Bool {
        guard nodes[node].kind == .string else { return false }
        // Only "$null" itself equals "$null": no character outside ASCII decomposes to "$", "n",
        // "u" or "l", so comparing bytes is exact (and cheaper than `==`).
        let utf8 = string(node).utf8
        return utf8.count == 5 && utf8.elementsEqual("$null".utf8)
    }

    func string(_ node: Int) -> String { strings[Int(nodes[node].payload)] }

    func integer(_ node: Int) -> Int128 {
        let n = nodes[node]
        return n.flag ? wideIntegers[Int(n.payload)] : Int128(Int64(bitPattern: n.payload))
    }

    func real(_ node: Int) -> Double { Double(bitPattern: nodes[node].payload) }
    func float(_ node: Int) -> Float { Float(real(node)) }
    func bool(_ node: Int) -> Bool { nodes[node].payload != 0 }
    func date(_ node: Int) -> Double { Double(bitPattern: nodes[node].payload) }
    func data(_ node: Int) -> Data { datas[Int(nodes[node].payload)] }
}

extension XMLDecodingIndex {
    /// The sink that fills an index: `XMLPlistScanner` calls it for each element it has checked.
    struct Sink: XMLPlistSink {
        let index: XMLDecodingIndex

        func openContainer(isDictionary: Bool) {
            let node = index.append(isDictionary ? .dictionary : .array, 0)
            index.open.append((node, index.pendingValues.count, index.pendingKeys.count))
        }

        func key(_ key: String) {
            index.pendingKeys.append(Int32(index.appendString(key)))
        }

        func value(_ value: PlistValue, end: Int) {
            index.finished(index.add(value))
        }

        func closeContainer(end: Int) {
            index.close()
        }
    }

    /// Moves the innermost container's pending entries into `children`.
    fileprivate func close() {
        let frame = open.removeLast()
        let node = frame.node
        let start = children.count
        if nodes[node].kind == .dictionary {
            let keys = pendingKeys[frame.keyStart...]
            // CoreFoundation reads `<dict><key>CF$UID</key><integer>n</integer></dict>` as a keyed-archive UID.
            if keys.count == 1, ExactKey.same(strings[Int(nodes[Int(keys.first!)].payload)], "CF$UID"),
               case let valueNode = Int(pendingValues[frame.valueStart]), nodes[valueNode].kind == .integer,
               let uid = UInt64(exactly: integer(valueNode)) {
                nodes[node] = Node(kind: .uid, flag: false, count: 0, payload: uid)
            } else {
                children.append(contentsOf: keys)
                children.append(contentsOf: pendingValues[frame.valueStart...])
                nodes[node] = Node(kind: .dictionary, flag: simpleKeys(keys), count: Int32(keys.count), payload: UInt64(start))
            }
            pendingKeys.removeSubrange(frame.keyStart...)
        } else {
            children.append(contentsOf: pendingValues[frame.valueStart...])
            nodes[node].count = Int32(pendingValues.count - frame.valueStart)
            nodes[node].payload = UInt64(start)
        }
        pendingValues.removeSubrange(frame.valueStart...)
        finished(node)
    }

    /// Scans `data` (an XML property list) into a new index.
    ///
    /// - Throws: The `PlistError` that `XMLPlistReader` throws for the same bytes.
    static func scan(_ data: Data, options: PlistReadOptions) throws -> XMLDecodingIndex {
        let index = XMLDecodingIndex(capacityHint: data.count)
        try TextCursor.withUTF8Text(data) { text, base in
            var scanner = XMLPlistScanner(text: text, base: base, options: options, sink: Sink(index: index))
            try scanner.scanDocument()
            guard index.root >= 0 else { throw scanner.lexer.error(.truncated, "expected a value", at: text.count) }
        }
        return index
    }
}
