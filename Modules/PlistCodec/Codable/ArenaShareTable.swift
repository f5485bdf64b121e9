import Foundation

/// `ShareTable` for `ArenaBinaryWriter`: finds an earlier object equal to a scalar of an
/// `EncodingArena`, so equal values are written once. Equality is the same exact equality: same
/// kind (signed integers, 16-byte integers, `Float`, `Double`, dates, data and strings kept apart),
/// same bits, same UTF-8 bytes. Codable's `nil` and booleans are one object each (`nullIndex`,
/// `trueIndex`, `falseIndex`).
struct ArenaShareTable {
    /// Per slot: the object index (-1 empty), the arena reference (a node, or `~string` for a
    /// dictionary key) and the hash.
    private var slotObjects: [Int32]
    private var slotRefs: [Int32]
    private var slotHashes: [UInt64]
    private var mask: Int
    private var used = 0
    private let seed: UInt64
    /// A direct-mapped cache from a string's raw representation to its object index: two strings
    /// with the same raw bits are the same storage (or the same inline small string), so a hit needs
    /// no hashing or comparison. Coding keys and repeated literals hit it every time.
    private var identityBits = [UInt64](repeating: 0, count: 2 * 128)
    private var identityIndex = [Int32](repeating: -1, count: 128)
    var trueIndex: Int32 = -1
    var falseIndex: Int32 = -1
    var nullIndex: Int32 = -1

    init(seed: UInt64) {
        self.seed = seed
        slotObjects = [Int32](repeating: -1, count: 256)
        slotRefs = [Int32](repeating: 0, count: 256)
        slotHashes = [UInt64](repeating: 0, count: 256)
        mask = 255
    }

    /// The object already holding a scalar equal to `node`, or nil after recording `newIndex` for it.
    mutating func findOrInsert(node: Int32, newIndex: Int32, arena: EncodingArena) -> Int32? {
        let n = arena.nodes[Int(node)]
        if n.kind == .string { return findOrInsert(string: Int32(truncatingIfNeeded: n.bits), ref: node, newIndex: newIndex, arena: arena) }
        return probe(ref: node, hash: hash(n, arena), newIndex: newIndex, arena: arena)
    }

    /// The same for the dictionary key `arena.strings[key]`.
    mutating func findOrInsert(key: Int32, newIndex: Int32, arena: EncodingArena) -> Int32? {
        findOrInsert(string: key, ref: ~key, newIndex: newIndex, arena: arena)
    }

    private mutating func findOrInsert(string: Int32, ref: Int32, newIndex: Int32, arena: EncodingArena) -> Int32? {
        let s = arena.strings[Int(string)]
        let bits = unsafeBitCast(s, to: (UInt64, UInt64).self)
        let slot = Int(truncatingIfNeeded: ShareHash.mix(bits.0 ^ (bits.1 &* 31))) & 127
        if identityIndex[slot] >= 0, identityBits[2 * slot] == bits.0, identityBits[2 * slot + 1] == bits.1 {
            return identityIndex[slot]
        }
        var str = s
        let h = str.withUTF8 { ShareHash.bytes(UnsafeRawBufferPointer($0), seed ^ 6) }
        let found = probe(ref: ref, hash: h, newIndex: newIndex, arena: arena)
        identityBits[2 * slot] = bits.0
        identityBits[2 * slot + 1] = bits.1
        identityIndex[slot] = found ?? newIndex
        return found
    }

    private mutating func probe(ref: Int32, hash h: UInt64, newIndex: Int32, arena: EncodingArena) -> Int32? {
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let s = slotObjects[i]
            if s < 0 { break }
            if slotHashes[i] == h, Self.equal(slotRefs[i], ref, arena) { return s }
            i = (i + 1) & mask
        }
        slotObjects[i] = newIndex
        slotRefs[i] = ref
        slotHashes[i] = h
        used += 1
        if used * 2 > mask { grow() }
        return nil
    }

    private mutating func grow() {
        let oldObjects = slotObjects, oldRefs = slotRefs, oldHashes = slotHashes
        let capacity = (mask + 1) * 2
        slotObjects = [Int32](repeating: -1, count: capacity)
        slotRefs = [Int32](repeating: 0, count: capacity)
        slotHashes = [UInt64](repeating: 0, count: capacity)
        mask = capacity - 1
        for j in oldObjects.indices where oldObjects[j] >= 0 {
            var i = Int(truncatingIfNeeded: oldHashes[j]) & mask
            while slotObjects[i] >= 0 { i = (i + 1) & mask }
            slotObjects[i] = oldObjects[j]
            slotRefs[i] = oldRefs[j]
            slotHashes[i] = oldHashes[j]
        }
    }

    private func hash(_ n: EncodingArena.Node, _ arena: EncodingArena) -> UInt64 {
        switch n.kind {
        case .int: return ShareHash.mix(n.bits ^ seed)
        case .wideInt:
            let v = arena.wideInts[Int(n.bits)]
            return ShareHash.mix(UInt64(truncatingIfNeeded: v) ^ UInt64(truncatingIfNeeded: v >> 64) &* 31 ^ seed ^ 1)
        case .float: return ShareHash.mix(n.bits ^ seed ^ 2)
        case .double: return ShareHash.mix(n.bits ^ seed ^ 3)
        case .date: return ShareHash.mix(n.bits ^ seed ^ 4)
        case .data: return arena.datas[Int(n.bits)].withUnsafeBytes { ShareHash.bytes($0, seed ^ 5) }
        default: return seed
        }
    }

    /// The string a reference holds, if it is a string (a key, or a string node).
    private static func string(_ ref: Int32, _ arena: EncodingArena) -> String? {
        if ref < 0 { return arena.strings[Int(~ref)] }
        let n = arena.nodes[Int(ref)]
        return n.kind == .string ? arena.strings[Int(n.bits)] : nil
    }

    private static func equal(_ a: Int32, _ b: Int32, _ arena: EncodingArena) -> Bool {
        if let x = string(a, arena) {
            guard let y = string(b, arena) else { return false }
            return ExactString(value: x) == ExactString(value: y)
        }
        if b < 0 { return false }
        let x = arena.nodes[Int(a)], y = arena.nodes[Int(b)]
        guard x.kind == y.kind else { return false }
        switch x.kind {
        case .int, .float, .double, .date: return x.bits == y.bits
        case .wideInt: return arena.wideInts[Int(x.bits)] == arena.wideInts[Int(y.bits)]
        case .data: return arena.datas[Int(x.bits)] == arena.datas[Int(y.bits)]
        default: return false
        }
    }
}
