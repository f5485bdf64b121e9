import Foundation

/// A hash table from document identifiers to `Value`: the identity map's entries, and what a write
/// transaction did with each identifier.
///
/// What it does that a `Dictionary` does not: it takes each identifier's hash from its
/// ``IdentifierKey`` (hashed once, by the caller, and never again when the table grows), compares
/// hashes before any identifier's text, keeps its entries in the order they were added, and hands out
/// its values in place, so a value holding a weak reference is read without being copied (copying one
/// is two atomic operations on the object's side table).
///
/// The entries are one array in insertion order (each with its hash, identifier and value together);
/// an index of power-of-two size, at most three quarters full and probed linearly, holds each entry's
/// position with 32 more bits of its hash. A lookup reads one index slot and one entry; a transaction's
/// records, added as its saves go, are walked at commit in the order of those saves, so the objects they
/// refer to are touched in the order they were saved (usually the order they were made in memory),
/// not at random. Entries are never removed one at a time: ``rebuild(reserving:keeping:)`` leaves out
/// those its owner no longer needs when the table grows.
///
/// Not thread-safe: its owner serializes every access (the identity map's lock, a transaction's thread).
struct IdentifierTable<Value>: ~Copyable {
    /// An entry, its value first: a struct's first stored property is at its start, so a pointer to
    /// an entry is a pointer to its value (checked in debug builds when a table is made).
    private struct Entry {
        var value: Value
        let hash: Int
        let identifier: String
    }

    /// Per index slot: 0 when empty, else the high 32 bits of the entry's hash and its position plus one.
    private var index: UnsafeMutablePointer<UInt64>
    /// `count` initialized entries, then room for as many more as the index takes.
    private var entries: UnsafeMutablePointer<Entry>
    /// The number of index slots minus one.
    private var mask: Int
    /// The number of entries.
    private(set) var count = 0

    init(minimumCapacity: Int = 0) {
        let slots = Self.slots(for: minimumCapacity)
        index = .allocate(capacity: slots)
        index.initialize(repeating: 0, count: slots)
        entries = .allocate(capacity: Self.limit(slots))
        mask = slots - 1
        assert(MemoryLayout<Entry>.offset(of: \Entry.value) == 0)
    }

    deinit {
        entries.deinitialize(count: count)
        entries.deallocate()
        index.deallocate()
    }

    /// The number of index slots for `count` entries: the smallest power of two, at least 16, that they
    /// fill at most three quarters of.
    private static func slots(for count: Int) -> Int {
        var slots = 16
        while limit(slots) < count { slots <<= 1 }
        return slots
    }

    /// The most entries `slots` index slots take.
    @inline(__always)
    private static func limit(_ slots: Int) -> Int { slots / 4 * 3 }

    @inline(__always)
    private static func tag(_ hash: Int) -> UInt64 { UInt64(UInt(bitPattern: hash) >> 32) << 32 }

    /// Whether `extra` more entries fit without a rebuild.
    @inline(__always)
    func hasRoom(for extra: Int) -> Bool { count + extra <= Self.limit(mask + 1) }

    /// Where `key` is: `found`, with `slot` its entry's position (for ``value(at:)``); or not, with
    /// `slot` the free index slot it would take (for ``insert(_:_:at:)``).
    @inline(__always)
    func find(_ key: IdentifierKey) -> (slot: Int, found: Bool) {
        let tag = Self.tag(key.hash)
        var slot = key.hash & mask
        while true {
            let stored = index[slot]
            if stored == 0 { return (slot, false) }
            if stored & 0xFFFF_FFFF_0000_0000 == tag {
                let position = Int(truncatingIfNeeded: stored & 0xFFFF_FFFF) - 1
                if entries[position].hash == key.hash && entries[position].identifier == key.identifier { return (position, true) }
            }
            slot = (slot &+ 1) & mask
        }
    }

    /// The value of the entry at `position` (a `slot` ``find(_:)`` found, or one ``insert(_:_:at:)``
    /// returned), in place: valid until the next insert or rebuild.
    @inline(__always)
    func value(at position: Int) -> UnsafeMutablePointer<Value> {
        UnsafeMutableRawPointer(entries + position).assumingMemoryBound(to: Value.self)
    }

    /// Adds `key` with `value` at the free index slot ``find(_:)`` returned for `key`, with no insert or
    /// rebuild since; the table must have room for it (``hasRoom(for:)``). Returns the entry's position.
    @inline(__always)
    @discardableResult
    mutating func insert(_ key: IdentifierKey, _ value: consuming Value, at slot: Int) -> Int {
        // fatalError, not precondition: its message survives a release build.
        if !(index[slot] == 0 && hasRoom(for: 1)) { fatalError("IdentifierTable.insert: not a free slot, or no room") }
        let position = count
        index[slot] = Self.tag(key.hash) | UInt64(position + 1)
        (entries + position).initialize(to: Entry(value: value, hash: key.hash, identifier: key.identifier))
        count += 1
        return position
    }

    /// The value of `key`'s entry, in place, adding one with `value()` first when there is none (a
    /// full table grows, keeping every entry).
    @inline(__always)
    mutating func value(adding key: IdentifierKey, _ value: @autoclosure () -> Value) -> UnsafeMutablePointer<Value> {
        if !hasRoom(for: 1) { rebuild(reserving: 1) { _ in true } }
        let (slot, found) = find(key)
        return self.value(at: found ? slot : insert(key, value(), at: slot))
    }

    /// Calls `body` with each entry's key and value (in place), in the order they were added.
    func forEach(_ body: (IdentifierKey, UnsafeMutablePointer<Value>) throws -> Void) rethrows {
        for position in 0..<count {
            try body(IdentifierKey(identifier: entries[position].identifier, hash: entries[position].hash), value(at: position))
        }
    }

    /// Hands every entry to `body` in the order they were added, moved out of the table (not copied:
    /// no reference is retained and released again), and leaves the table empty.
    mutating func drain(_ body: (consuming IdentifierKey, consuming Value) -> Void) {
        let drained = count
        count = 0
        index.update(repeating: 0, count: mask + 1)
        for position in 0..<drained {
            let entry = (entries + position).move()
            body(IdentifierKey(identifier: entry.identifier, hash: entry.hash), entry.value)
        }
    }

    /// Keeps the entries `keep` accepts (in their order) and drops the others, with room for `extra`
    /// more (and at least as many more as it keeps, so that adding one at a time rebuilds only each
    /// time the entries double). Positions and value pointers from before are no longer valid.
    mutating func rebuild(reserving extra: Int, keeping keep: (UnsafeMutablePointer<Value>) -> Bool) {
        var kept = 0
        for position in 0..<count {
            if keep(value(at: position)) {
                if position != kept { (entries + kept).moveInitialize(from: entries + position, count: 1) }
                kept += 1
            } else {
                (entries + position).deinitialize(count: 1)
            }
        }
        count = kept
        let slots = Self.slots(for: max(kept + extra, kept * 2))
        if slots != mask + 1 {
            let moved = UnsafeMutablePointer<Entry>.allocate(capacity: Self.limit(slots))
            moved.moveInitialize(from: entries, count: kept)
            entries.deallocate()
            entries = moved
            index.deallocate()
            index = .allocate(capacity: slots)
            mask = slots - 1
        }
        index.initialize(repeating: 0, count: slots)
        for position in 0..<kept {
            let hash = entries[position].hash
            var slot = hash & mask
            while index[slot] != 0 { slot = (slot &+ 1) & mask }
            index[slot] = Self.tag(hash) | UInt64(position + 1)
        }
    }

    /// Drops every entry.
    mutating func removeAll() {
        self = IdentifierTable()
    }
}
