import Foundation

/// A storage's registered objects of one entity, by row id: the identity map's inner table.
///
/// Open addressing with linear probing, at most half full, in memory of its own. Row ids are mostly
/// dense integers handed out in order, so the slot is the row id with its high bits folded in: rows
/// read in id order land in neighbouring slots (a fetch of 100k rows no longer misses the cache on
/// every registration, as `Dictionary`'s seeded SipHash made it, on top of the hashing itself).
/// Used by one storage, on one thread.
final class RowRegistry {
    typealias Entry = StorageContext.Registration

    /// The key of a free slot, and of a slot whose entry was removed (probes go on past it).
    private static let free = Int64.min
    private static let removed = Int64.min + 1

    private var keys: UnsafeMutablePointer<Int64>
    private var entries: UnsafeMutablePointer<Entry?>
    private var capacity: Int
    /// The two row ids the table uses as markers (SQLite allows them), kept aside.
    private var markerRows: [Int64: Entry] = [:]
    /// Live entries in the table, and slots taken (live and removed).
    private var indexed = 0
    private var taken = 0
    /// Entries added with ``appendNew(_:_:)`` and not in the table yet: it takes them in one go at the
    /// first lookup, sized once. A fetch into an empty registry (the first of a read, or of an
    /// operation) then never looks a row up, and the table is only built if something asks.
    @exclusivity(unchecked) private var pending: [(rowID: Int64, entry: Entry)] = []

    /// How many rows are registered.
    var count: Int { indexed + pending.count }

    /// Whether no row is registered.
    var isEmpty: Bool { indexed == 0 && pending.isEmpty }

    init() {
        capacity = 16
        keys = .allocate(capacity: capacity)
        keys.initialize(repeating: Self.free, count: capacity)
        entries = .allocate(capacity: capacity)
        entries.initialize(repeating: nil, count: capacity)
    }

    deinit {
        keys.deallocate()
        entries.deinitialize(count: capacity)
        entries.deallocate()
    }

    @inline(__always)
    private func home(_ rowID: Int64) -> Int {
        var bits = UInt64(bitPattern: rowID)
        bits ^= bits >> 32
        bits ^= bits >> 16
        return Int(truncatingIfNeeded: bits) & (capacity - 1)
    }

    /// The slot holding `rowID`, or -1.
    @inline(__always)
    private func slot(of rowID: Int64) -> Int {
        let mask = capacity - 1
        var slot = home(rowID)
        while true {
            let key = keys[slot]
            if key == rowID { return slot }
            if key == Self.free { return -1 }
            slot = (slot + 1) & mask
        }
    }

    /// Registers `entry` for `rowID`, which the caller knows is not registered (a row of a fetch that
    /// began with the registry empty: a query returns each row once).
    func appendNew(_ rowID: Int64, _ entry: Entry) {
        pending.append((rowID, entry))
    }

    /// Puts the entries added with ``appendNew(_:_:)`` in the table, grown once to hold them.
    private func indexPending() {
        let entries = pending
        pending = []
        var size = capacity
        while (taken + entries.count + 1) * 2 > size { size *= 2 }
        if size != capacity { rebuild(capacity: size) }
        for (rowID, entry) in entries { self[rowID] = entry }
    }

    /// The registration of `rowID`, if any.
    subscript(rowID: Int64) -> Entry? {
        get {
            if !pending.isEmpty { indexPending() }
            if rowID <= Self.removed { return markerRows[rowID] }
            let slot = slot(of: rowID)
            return slot < 0 ? nil : entries[slot]
        }
        set {
            if !pending.isEmpty { indexPending() }
            if rowID <= Self.removed {
                let before = markerRows[rowID] != nil
                markerRows[rowID] = newValue
                indexed += (newValue != nil ? 1 : 0) - (before ? 1 : 0)
            } else if let newValue {
                insert(rowID, newValue)
            } else {
                let slot = slot(of: rowID)
                guard slot >= 0 else { return }
                keys[slot] = Self.removed
                entries[slot] = nil
                indexed -= 1
            }
        }
    }

    private func insert(_ rowID: Int64, _ entry: Entry) {
        if (taken + 1) * 2 > capacity { grow() }
        let mask = capacity - 1
        var slot = home(rowID)
        var reusable = -1
        while true {
            let key = keys[slot]
            if key == rowID {
                entries[slot] = entry
                return
            }
            if key == Self.removed, reusable < 0 { reusable = slot }
            if key == Self.free { break }
            slot = (slot + 1) & mask
        }
        if reusable >= 0 {
            slot = reusable
        } else {
            taken += 1
        }
        keys[slot] = rowID
        entries[slot] = entry
        indexed += 1
    }

    /// Doubles the table when at least a quarter of it is live (else rebuilds it at its size,
    /// dropping removed slots).
    private func grow() {
        rebuild(capacity: (indexed - markerRows.count) * 4 >= capacity ? capacity * 2 : capacity)
    }

    private func rebuild(capacity newCapacity: Int) {
        let oldKeys = keys, oldEntries = entries, oldCapacity = capacity
        capacity = newCapacity
        keys = .allocate(capacity: capacity)
        keys.initialize(repeating: Self.free, count: capacity)
        entries = .allocate(capacity: capacity)
        entries.initialize(repeating: nil, count: capacity)
        indexed = markerRows.count
        taken = 0
        for slot in 0..<oldCapacity {
            let key = oldKeys[slot]
            if key != Self.free && key != Self.removed, let entry = oldEntries[slot] { insert(key, entry) }
        }
        oldKeys.deallocate()
        oldEntries.deinitialize(count: oldCapacity)
        oldEntries.deallocate()
    }
}
