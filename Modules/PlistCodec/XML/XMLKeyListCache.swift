import Foundation

/// The sorted, escaped key lines of the dictionaries `ValueXMLWriter` wrote last: records of one
/// type repeat one key list, so each list is sorted and escaped once per depth, and writing a key
/// is then one copy of bytes.
///
/// Lists match by exact Unicode scalars (two keys that differ only in normalization are different
/// keys, and are written differently), checked first by the strings' bits.
final class XMLKeyListCache {
    /// One key list at one depth, ready to write.
    final class List {
        let keys: [String]
        let depth: Int
        /// The positions of the keys in the order they are written.
        let order: [Int]
        /// Each key's line in written order: `depth` tabs, `<key>`, the escaped key, `</key>` and a
        /// line break; line `j` ends at `ends[j]`.
        let text: [UInt8]
        let ends: [Int]

        init(keys: [String], depth: Int, order: [Int]) {
            self.keys = keys
            self.depth = depth
            self.order = order
            var text: [UInt8] = []
            var ends: [Int] = []
            ends.reserveCapacity(keys.count)
            for i in order {
                text.append(contentsOf: repeatElement(0x09, count: depth))
                text.append(contentsOf: "<key>".utf8)
                text.append(contentsOf: XMLEscaping.bytes(keys[i]))
                text.append(contentsOf: "</key>\n".utf8)
                ends.append(text.count)
            }
            self.text = text
            self.ends = ends
        }
    }

    let mode: PlistWriteMode
    // Read for every dictionary by one writer on one thread: skip dynamic exclusivity checks.
    @exclusivity(unchecked) private var recent: [List] = []
    @exclusivity(unchecked) private var next = 0
    @exclusivity(unchecked) private var lastHit = 0
    private static let capacity = 8

    init(mode: PlistWriteMode) {
        self.mode = mode
    }

    /// The list for `keys` (distinct keys, as `PlistDictionary` holds them) written at `depth`.
    func list(for keys: [String], depth: Int) -> List {
        if lastHit < recent.count, matches(recent[lastHit], keys, depth) { return recent[lastHit] }
        for i in recent.indices where matches(recent[i], keys, depth) {
            lastHit = i
            return recent[i]
        }
        let list = List(keys: keys, depth: depth, order: Self.order(of: keys, mode: mode))
        if recent.count < Self.capacity {
            recent.append(list)
            lastHit = recent.count - 1
        } else {
            recent[next] = list
            lastHit = next
            next = (next + 1) % Self.capacity
        }
        return list
    }

    private func matches(_ list: List, _ keys: [String], _ depth: Int) -> Bool {
        guard list.depth == depth, list.keys.count == keys.count else { return false }
        return list.keys.withUnsafeBufferPointer { a in
            keys.withUnsafeBufferPointer { b in
                if a.baseAddress == b.baseAddress { return true }
                for i in a.indices where !Self.same(a[i], b[i]) { return false }
                return true
            }
        }
    }

    /// Whether two strings have the same scalars: the same bits (one storage, or the same small
    /// string) settle it at once.
    @inline(__always)
    private static func same(_ a: String, _ b: String) -> Bool {
        unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self) || ExactKey.same(a, b)
    }

    /// Key positions in written order: Swift `String` order for Foundation, UTF-16 code-unit order
    /// for CoreFoundation (as `KeyOrderCache` sorts them).
    static func order(of keys: [String], mode: PlistWriteMode) -> [Int] {
        if keys.count < 2 { return Array(keys.indices) }
        switch mode {
        case .foundation:
            return keys.indices.sorted { keys[$0] < keys[$1] }
        case .coreFoundation:
            return keys.indices.sorted { keys[$0].utf16.lexicographicallyPrecedes(keys[$1].utf16) }
        }
    }
}
