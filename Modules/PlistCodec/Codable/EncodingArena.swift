import Foundation

/// What `PlistEncoder` builds while a value encodes itself: every node of the property list in a
/// few flat arrays, so encoding allocates no object per container or value. The binary and XML
/// writers (`ArenaBinaryWriter`, `ArenaXMLWriter`) read it directly.
///
/// A container's entries form a linked list in `entries`, so a container can still be filled after
/// others were opened after it, as Codable allows (a nested container used after its parent moved
/// on). A dictionary may hold a key more than once while it is built; writers read it through
/// `entries(of:)`, which keeps each key's first position and last value, as encoding a key twice
/// replaces its value in `PropertyListEncoder`.
final class EncodingArena {
    enum Kind: UInt8 {
        /// Codable's `nil`: written as the string `$null`, but an object of its own (never shared
        /// with a real `"$null"` string), as `PropertyListEncoder` writes it.
        case null
        case bool, int, wideInt, float, double, string, date, data, array, dictionary
        /// A subtree written by a `superEncoder()`: `PropertyListEncoder` gives it a sharing table of
        /// its own. `first` is the node it wraps.
        case isolated
    }

    struct Node {
        var kind: Kind
        /// Containers: the number of entries (repeated keys included).
        var count: Int32 = 0
        /// Containers: the first and last entry (-1 when empty). Isolated: the wrapped node.
        var first: Int32 = -1
        var last: Int32 = -1
        /// Scalars: the value's bits, or the index of its string, data or wide integer.
        var bits: UInt64 = 0
    }

    struct Entry {
        /// The key's index in `strings` (dictionaries), or -1 (arrays).
        var key: Int32
        var value: Int32
        var next: Int32 = -1
    }

    // Hot and only touched by the encoding thread: skip dynamic exclusivity checks.
    @exclusivity(unchecked) var nodes: [Node] = []
    @exclusivity(unchecked) var entryList: [Entry] = []
    @exclusivity(unchecked) var strings: [String] = []
    @exclusivity(unchecked) var datas: [Data] = []
    @exclusivity(unchecked) var wideInts: [Int128] = []
    /// Key lists seen before, by their keys' indices: whether their keys are distinct, and their
    /// sorted order.
    let keyLists = KeyListCache()
    /// The index in `strings` of recently added keys, by the raw bits of the key string: a type
    /// encodes the same key literals every time, so each is stored once and a key list is a list
    /// of small numbers. Equal bits are the same string (every string here stays alive).
    @exclusivity(unchecked) private var keyBits = [UInt64](repeating: 0, count: 2 * 256)
    @exclusivity(unchecked) private var keyIndex = [Int32](repeating: -1, count: 256)

    // MARK: Building

    @inline(__always)
    func add(_ kind: Kind, bits: UInt64 = 0) -> Int32 {
        nodes.append(Node(kind: kind, bits: bits))
        return Int32(nodes.count - 1)
    }

    @inline(__always)
    func addString(_ s: String) -> Int32 { add(.string, bits: UInt64(internString(s))) }

    @inline(__always)
    func internString(_ s: String) -> Int32 {
        strings.append(s)
        return Int32(strings.count - 1)
    }

    /// The index of a dictionary key in `strings`, reusing the last one with the same raw bits.
    @inline(__always)
    func internKey(_ key: String) -> Int32 {
        let bits = unsafeBitCast(key, to: (UInt64, UInt64).self)
        var h = (bits.0 ^ (bits.1 &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 29
        let slot = Int(truncatingIfNeeded: h) & 255
        if keyIndex[slot] >= 0, keyBits[2 * slot] == bits.0, keyBits[2 * slot + 1] == bits.1 { return keyIndex[slot] }
        let index = internString(key)
        keyBits[2 * slot] = bits.0
        keyBits[2 * slot + 1] = bits.1
        keyIndex[slot] = index
        return index
    }

    func addData(_ d: Data) -> Int32 {
        datas.append(d)
        return add(.data, bits: UInt64(datas.count - 1))
    }

    func addWide(_ v: Int128) -> Int32 {
        wideInts.append(v)
        return add(.wideInt, bits: UInt64(wideInts.count - 1))
    }

    func addIsolated(_ inner: Int32) -> Int32 {
        let node = add(.isolated)
        nodes[Int(node)].first = inner
        return node
    }

    /// Appends an entry to `container` (`key` -1 for an array).
    @inline(__always)
    func append(to container: Int32, key: Int32, value: Int32) {
        let e = Int32(entryList.count)
        entryList.append(Entry(key: key, value: value))
        let c = Int(container)
        if nodes[c].last >= 0 { entryList[Int(nodes[c].last)].next = e } else { nodes[c].first = e }
        nodes[c].last = e
        nodes[c].count += 1
    }

    /// Inserts an array entry at `position` (at the end if the array is shorter).
    func insert(into container: Int32, at position: Int, value: Int32) {
        let c = Int(container)
        guard position < Int(nodes[c].count), position >= 0 else { return append(to: container, key: -1, value: value) }
        let e = Int32(entryList.count)
        entryList.append(Entry(key: -1, value: value))
        nodes[c].count += 1
        if position == 0 {
            entryList[Int(e)].next = nodes[c].first
            nodes[c].first = e
            return
        }
        var before = nodes[c].first
        for _ in 1..<position { before = entryList[Int(before)].next }
        entryList[Int(e)].next = entryList[Int(before)].next
        entryList[Int(before)].next = e
    }

    /// The current value of `key` in a dictionary: the last entry whose key equals it.
    func value(for key: String, in container: Int32) -> Int32? {
        var found: Int32?
        var e = nodes[Int(container)].first
        while e >= 0 {
            if strings[Int(entryList[Int(e)].key)] == key { found = entryList[Int(e)].value }
            e = entryList[Int(e)].next
        }
        return found
    }

    // MARK: Reading

    /// A container's entries in order, appended to `out`. For a dictionary each key keeps its first
    /// position and its last value; keys compare by Swift string equality, as a `Dictionary` would.
    func entries(of container: Int32, into out: inout [Entry]) {
        let start = out.count
        gather(container, into: &out)
        guard nodes[Int(container)].kind == .dictionary, out.count - start > 1 else { return }
        if !keyLists.distinct(out[start...], strings) { removeRepeatedKeys(&out, from: start) }
    }

    /// The entries as they were added, repeated keys included.
    @inline(__always)
    func gather(_ container: Int32, into out: inout [Entry]) {
        var e = nodes[Int(container)].first
        while e >= 0 {
            out.append(entryList[Int(e)])
            e = entryList[Int(e)].next
        }
    }

    /// Keeps each key's first position and last value among `out[start...]`.
    func removeRepeatedKeys(_ out: inout [Entry], from start: Int) {
        var kept = start
        for i in start..<out.count {
            let name = strings[Int(out[i].key)]
            if let j = (start..<kept).first(where: { strings[Int(out[$0].key)] == name }) {
                out[j].value = out[i].value
            } else {
                out[kept] = out[i]
                kept += 1
            }
        }
        out.removeSubrange(kept...)
    }

    /// The node as a `PlistValue` (Codable `nil` becomes the string `$null`).
    func value(of node: Int32) -> PlistValue {
        let n = nodes[Int(node)]
        switch n.kind {
        case .null: return .string("$null")
        case .bool: return .bool(n.bits != 0)
        case .int: return .integer(PlistInteger(Int128(Int64(bitPattern: n.bits)), isWide: false))
        case .wideInt: return .integer(PlistInteger(wideInts[Int(n.bits)], isWide: true))
        case .float: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: n.bits)))
        case .double: return .real(Double(bitPattern: n.bits))
        case .string: return .string(strings[Int(n.bits)])
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: n.bits)))
        case .data: return .data(datas[Int(n.bits)])
        case .isolated: return value(of: n.first)
        case .array, .dictionary:
            var list: [Entry] = []
            entries(of: node, into: &list)
            if n.kind == .array { return .array(list.map { value(of: $0.value) }) }
            return .dictionary(PlistDictionary(uniqueKeys: list.map { strings[Int($0.key)] }, values: list.map { value(of: $0.value) }))
        }
    }
}

/// Facts about the key lists of recent dictionaries, found by their keys' indices in the arena's
/// strings (`internKey` gives a key literal one index): after the first dictionary of a type, its
/// key list is recognised with one comparison per key instead of comparing keys with each other.
final class KeyListCache {
    private struct List {
        var keys: [Int32]
        var distinct: Bool
        var order: [Int]?
    }
    @exclusivity(unchecked) private var recent: [List] = []
    @exclusivity(unchecked) private var next = 0

    private func find(_ entries: ArraySlice<EncodingArena.Entry>, _ strings: [String]) -> Int? {
        let n = entries.count
        search: for (slot, list) in recent.enumerated() where list.keys.count == n {
            var i = 0
            for entry in entries {
                if list.keys[i] != entry.key { continue search }
                i += 1
            }
            return slot
        }
        return nil
    }

    private func remember(_ entries: ArraySlice<EncodingArena.Entry>, _ strings: [String], distinct: Bool) -> Int {
        let list = List(keys: entries.map(\.key), distinct: distinct, order: nil)
        if recent.count < 8 {
            recent.append(list)
            return recent.count - 1
        }
        let slot = next
        recent[slot] = list
        next = (next + 1) % 8
        return slot
    }

    /// Whether no two keys of `entries` are equal strings.
    func distinct(_ entries: ArraySlice<EncodingArena.Entry>, _ strings: [String]) -> Bool {
        if entries.count > 64 { return Set(entries.map { strings[Int($0.key)] }).count == entries.count }
        if let slot = find(entries, strings) { return recent[slot].distinct }
        var distinct = true
        var i = entries.startIndex
        outer: while i < entries.endIndex {
            let a = strings[Int(entries[i].key)]
            var j = i + 1
            while j < entries.endIndex {
                if a == strings[Int(entries[j].key)] { distinct = false; break outer }
                j += 1
            }
            i += 1
        }
        _ = remember(entries, strings, distinct: distinct)
        return distinct
    }

    /// A dictionary's entries (`gather`ed into `out[start...]`) made ready for XML: repeated keys
    /// removed, and the positions in Swift `String` order, as XML writes keys. One look in the cache
    /// answers both for a key list seen before.
    func prepareForXML(_ out: inout [EncodingArena.Entry], from start: Int, arena: EncodingArena) -> [Int] {
        let strings = arena.strings
        let n = out.count - start
        if n < 2 { return Array(0..<n) }
        if n <= 64, let slot = find(out[start...], strings) {
            if recent[slot].distinct, let order = recent[slot].order { return order }
            if !recent[slot].distinct { arena.removeRepeatedKeys(&out, from: start) }
            return order(out[start...], strings, cacheAt: recent[slot].distinct ? slot : nil)
        }
        if !distinct(out[start...], strings) {
            arena.removeRepeatedKeys(&out, from: start)
            return order(out[start...], strings, cacheAt: nil)
        }
        return order(out[start...], strings, cacheAt: n <= 64 ? find(out[start...], strings) : nil)
    }

    private func order(_ entries: ArraySlice<EncodingArena.Entry>, _ strings: [String], cacheAt slot: Int?) -> [Int] {
        let keys = entries.map { strings[Int($0.key)] }
        let order = keys.indices.sorted { keys[$0] < keys[$1] }
        if let slot { recent[slot].order = order }
        return order
    }
}
