import Foundation

/// A hash table from document identifiers to `Value`: the identity map's entries, and what a write
/// transaction did with each identifier.
///
/// What it does that a `Dictionary` does not: it takes each identifier's hash from its
/// ``IdentifierKey`` (hashed once, by the caller, and never again when the table grows), compares the
/// stored hashes before any identifier's text, and hands out its values in place, so a value holding a
/// weak reference is read without being copied (copying one is two atomic operations on the object's
/// side table).
///
/// Linear probing over a power-of-two number of slots, kept at most three quarters full. The hashes are
/// an array of their own, so a probe reads the identifiers' text only where the hashes match. Entries
/// are never removed one at a time: ``rebuild(reserving:keeping:)`` leaves out those its owner no
/// longer needs when the table grows.
///
/// Not thread-safe: its owner serializes every access (the identity map's lock, a transaction's thread).
struct IdentifierTable<Value>: ~Copyable {
    /// 0 marks an empty slot (a key's hash never is 0).
    private var hashes: UnsafeMutablePointer<Int>
    private var identifiers: UnsafeMutablePointer<String>
    private var values: UnsafeMutablePointer<Value>
    /// The number of slots minus one.
    private var mask: Int
    /// The number of entries.
    private(set) var count = 0

    init(minimumCapacity: Int = 0) {
        let capacity = Self.capacity(for: minimumCapacity)
        hashes = .allocate(capacity: capacity)
        hashes.initialize(repeating: 0, count: capacity)
        identifiers = .allocate(capacity: capacity)
        values = .allocate(capacity: capacity)
        mask = capacity - 1
    }

    deinit {
        for slot in 0...mask where hashes[slot] != 0 {
            (identifiers + slot).deinitialize(count: 1)
            (values + slot).deinitialize(count: 1)
        }
        hashes.deallocate()
        identifiers.deallocate()
        values.deallocate()
    }

    /// The number of slots for `count` entries: the smallest power of two, at least 16, that they fill
    /// at most three quarters of.
    private static func capacity(for count: Int) -> Int {
        var capacity = 16
        while capacity / 4 * 3 < count { capacity <<= 1 }
        return capacity
    }

    /// Whether `extra` more entries fit without a rebuild.
    @inline(__always)
    func hasRoom(for extra: Int) -> Bool { count + extra <= (mask + 1) / 4 * 3 }

    /// Where `key` is: its slot (`found`), or the empty slot it would take.
    @inline(__always)
    func find(_ key: IdentifierKey) -> (slot: Int, found: Bool) {
        var slot = key.hash & mask
        while true {
            let stored = hashes[slot]
            if stored == 0 { return (slot, false) }
            if stored == key.hash && identifiers[slot] == key.identifier { return (slot, true) }
            slot = (slot &+ 1) & mask
        }
    }

    /// The value in `slot`, in place: valid until the next insert or rebuild.
    @inline(__always)
    func value(at slot: Int) -> UnsafeMutablePointer<Value> { values + slot }

    /// Puts `key` and `value` in `slot`, the empty slot ``find(_:)`` returned for `key`, with no insert
    /// or rebuild since; the table must have room for it (``hasRoom(for:)``).
    @inline(__always)
    mutating func insert(_ key: IdentifierKey, _ value: consuming Value, at slot: Int) {
        precondition(hashes[slot] == 0 && hasRoom(for: 1), "IdentifierTable.insert: not an empty slot, or no room")
        hashes[slot] = key.hash
        (identifiers + slot).initialize(to: key.identifier)
        (values + slot).initialize(to: value)
        count += 1
    }

    /// Calls `body` with each entry's key and value (in place), in slot order.
    func forEach(_ body: (IdentifierKey, UnsafeMutablePointer<Value>) throws -> Void) rethrows {
        for slot in 0...mask where hashes[slot] != 0 {
            try body(IdentifierKey(identifier: identifiers[slot], hash: hashes[slot]), values + slot)
        }
    }

    /// Hands every entry to `body`, moved out of the table (not copied: no reference is retained and
    /// released again), and leaves the table empty.
    mutating func drain(_ body: (consuming IdentifierKey, consuming Value) -> Void) {
        for slot in 0...mask where hashes[slot] != 0 {
            let hash = hashes[slot]
            hashes[slot] = 0
            count -= 1
            body(IdentifierKey(identifier: (identifiers + slot).move(), hash: hash), (values + slot).move())
        }
    }

    /// Moves the entries `keep` accepts into a table with room for `extra` more (and at least as many
    /// more as it keeps, so that inserting one at a time rebuilds only each time the entries double);
    /// the others are dropped. Slots and value pointers from before are no longer valid.
    mutating func rebuild(reserving extra: Int, keeping keep: (UnsafeMutablePointer<Value>) -> Bool) {
        let (oldHashes, oldIdentifiers, oldValues, oldCapacity) = (hashes, identifiers, values, mask + 1)
        var kept = 0
        for slot in 0..<oldCapacity where oldHashes[slot] != 0 {
            if keep(oldValues + slot) {
                kept += 1
            } else {
                oldHashes[slot] = 0
                (oldIdentifiers + slot).deinitialize(count: 1)
                (oldValues + slot).deinitialize(count: 1)
            }
        }
        let capacity = Self.capacity(for: max(kept + extra, kept * 2))
        hashes = .allocate(capacity: capacity)
        hashes.initialize(repeating: 0, count: capacity)
        identifiers = .allocate(capacity: capacity)
        values = .allocate(capacity: capacity)
        mask = capacity - 1
        count = kept
        for slot in 0..<oldCapacity where oldHashes[slot] != 0 {
            let hash = oldHashes[slot]
            var target = hash & mask
            while hashes[target] != 0 { target = (target &+ 1) & mask }
            hashes[target] = hash
            (identifiers + target).moveInitialize(from: oldIdentifiers + slot, count: 1)
            (values + target).moveInitialize(from: oldValues + slot, count: 1)
        }
        oldHashes.deallocate()
        oldIdentifiers.deallocate()
        oldValues.deallocate()
    }

    /// Drops every entry.
    mutating func removeAll() {
        self = IdentifierTable()
    }
}
