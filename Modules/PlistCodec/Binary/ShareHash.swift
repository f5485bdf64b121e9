/// The seeded hash both share tables (`ShareTable` for `PlistNode`s, `ArenaShareTable` for the
/// encoder's arena) use to find equal scalars: cheaper than `Hasher` on the binary writers' hottest
/// path, and the same in both, so the two writers unique exactly the same values.
enum ShareHash {
    /// A 64-bit finalizer (splitmix64's), so nearby inputs land in unrelated slots.
    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Hashes `bytes` eight at a time, then the tail, mixed with `seed` and the length.
    static func bytes(_ bytes: UnsafeRawBufferPointer, _ seed: UInt64) -> UInt64 {
        let n = bytes.count
        var h = seed ^ (UInt64(n) &* 0x9E37_79B9_7F4A_7C15)
        guard let p = bytes.baseAddress else { return mix(h) }
        var i = 0
        while i + 8 <= n {
            h = (h ^ p.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            tail |= UInt64(p.load(fromByteOffset: i, as: UInt8.self)) << shift
            shift += 8
            i += 1
        }
        return mix(h ^ tail)
    }
}
