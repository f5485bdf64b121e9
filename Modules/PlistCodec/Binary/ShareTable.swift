import Foundation

/// The table that finds an earlier object equal to a scalar, so equal values are written once.
///
/// Open addressing with a cheap seeded hash instead of `Dictionary` and `Hasher`: the writer looks up
/// every scalar it writes, so this lookup is the binary encoder's hottest path. Equality is exact:
/// same kind, same bits, same UTF-8 bytes.
struct ShareTable {
    private var slots: [Int32]
    private var slotHashes: [UInt64]
    private var mask: Int
    private var used = 0
    private let seed: UInt64
    /// A direct-mapped cache from a string's raw representation to its object index. Two strings with
    /// the same raw bits are the same storage (or the same inline small string), so a hit needs no
    /// hashing or comparison: coding keys and repeated literals hit it every time.
    private var identityBits = [UInt64](repeating: 0, count: 2 * 128)
    private var identityIndex = [Int32](repeating: -1, count: 128)
    var trueIndex = -1
    var falseIndex = -1
    var nullIndex = -1

    init(seed: UInt64) {
        self.seed = seed
        slots = [Int32](repeating: -1, count: 256)
        slotHashes = [UInt64](repeating: 0, count: 256)
        mask = 255
    }

    /// Returns the index of an object equal to `node`, or records `newIndex` for it and returns nil.
    mutating func findOrInsert(_ node: PlistNode, newIndex: Int, objects: [PlistNode]) -> Int? {
        guard case .string(let string) = node else { return probe(node, newIndex: newIndex, objects: objects) }
        let bits = unsafeBitCast(string, to: (UInt64, UInt64).self)
        let slot = Int(truncatingIfNeeded: ShareHash.mix(bits.0 ^ (bits.1 &* 31))) & 127
        if identityIndex[slot] >= 0, identityBits[2 * slot] == bits.0, identityBits[2 * slot + 1] == bits.1 {
            return Int(identityIndex[slot])
        }
        let found = probe(node, newIndex: newIndex, objects: objects)
        identityBits[2 * slot] = bits.0
        identityBits[2 * slot + 1] = bits.1
        identityIndex[slot] = Int32(found ?? newIndex)
        return found
    }

    private mutating func probe(_ node: PlistNode, newIndex: Int, objects: [PlistNode]) -> Int? {
        let h = hash(node)
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let s = slots[i]
            if s < 0 { break }
            if slotHashes[i] == h, Self.equal(objects[Int(s)], node) { return Int(s) }
            i = (i + 1) & mask
        }
        slots[i] = Int32(newIndex)
        slotHashes[i] = h
        used += 1
        if used * 2 > mask { grow() }
        return nil
    }

    private mutating func grow() {
        let oldSlots = slots, oldHashes = slotHashes
        let capacity = (mask + 1) * 2
        slots = [Int32](repeating: -1, count: capacity)
        slotHashes = [UInt64](repeating: 0, count: capacity)
        mask = capacity - 1
        for j in oldSlots.indices where oldSlots[j] >= 0 {
            var i = Int(truncatingIfNeeded: oldHashes[j]) & mask
            while slots[i] >= 0 { i = (i + 1) & mask }
            slots[i] = oldSlots[j]
            slotHashes[i] = oldHashes[j]
        }
    }

    private func hash(_ node: PlistNode) -> UInt64 {
        switch node {
        case .int(let v): return ShareHash.mix(UInt64(bitPattern: v) ^ seed)
        case .wideInt(let v): return ShareHash.mix(UInt64(truncatingIfNeeded: v) ^ UInt64(truncatingIfNeeded: v >> 64) &* 31 ^ seed ^ 1)
        case .float(let f): return ShareHash.mix(UInt64(f.bitPattern) ^ seed ^ 2)
        case .double(let d): return ShareHash.mix(d.bitPattern ^ seed ^ 3)
        case .date(let t): return ShareHash.mix(t.bitPattern ^ seed ^ 4)
        case .data(let d): return d.withUnsafeBytes { ShareHash.bytes($0, seed ^ 5) }
        case .string(let s):
            var str = s
            return str.withUTF8 { ShareHash.bytes(UnsafeRawBufferPointer($0), seed ^ 6) }
        default: return seed
        }
    }

    private static func equal(_ a: PlistNode, _ b: PlistNode) -> Bool {
        switch (a, b) {
        case let (.int(x), .int(y)): return x == y
        case let (.wideInt(x), .wideInt(y)): return x == y
        case let (.float(x), .float(y)): return x.bitPattern == y.bitPattern
        case let (.double(x), .double(y)): return x.bitPattern == y.bitPattern
        case let (.date(x), .date(y)): return x.bitPattern == y.bitPattern
        case let (.data(x), .data(y)): return x == y
        case let (.string(x), .string(y)): return ExactString(value: x) == ExactString(value: y)
        default: return false
        }
    }
}
