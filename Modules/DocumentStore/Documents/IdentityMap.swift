import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The weak identity map: one live instance per identifier, and the revision each instance was
/// loaded or saved at.
///
/// Entries hold their objects weakly, so the map never keeps a document alive; an entry whose object
/// is gone counts as absent (exactly as if it were not there) and is swept out when the table would
/// grow. The entries are an ``IdentifierTable`` read in place, each operation under one lock.
// @unchecked Sendable: `entries` is only touched under `lock`
final class IdentityMap: @unchecked Sendable {
    /// Stored in the table and read there, never copied out (a weak reference's copy costs
    /// atomic operations on the object's side table).
    struct Entry {
        weak var object: AnyObject?
        var revision: String
        /// The object's document was deleted (through it): loads no longer return it.
        var deleted: Bool

        init(object: AnyObject, revision: String, deleted: Bool = false) {
            self.object = object
            self.revision = revision
            self.deleted = deleted
        }
    }

    private let lock = Lock()
    private var entries = IdentifierTable<Entry>()

    /// The live instance for `key`, unless its document was deleted through it.
    @inline(__always)
    func object(_ key: IdentifierKey) -> AnyObject? {
        lock.withLock {
            let (slot, found) = entries.find(key)
            guard found else { return nil }
            let entry = entries.value(at: slot)
            return entry.pointee.deleted ? nil : entry.pointee.object
        }
    }

    /// The live instance for `identifier`, unless its document was deleted through it.
    func object(_ identifier: String) -> AnyObject? { object(IdentifierKey(identifier)) }

    /// The revision `object` was loaded or saved at, when it is the map's instance for its identifier.
    func revision(of object: AnyObject, key: IdentifierKey) -> String? {
        lock.withLock {
            let (slot, found) = entries.find(key)
            guard found else { return nil }
            let entry = entries.value(at: slot)
            return entry.pointee.object === object ? entry.pointee.revision : nil
        }
    }

    /// Whether a live instance of `identifier` is in the map.
    func contains(_ identifier: String) -> Bool { object(identifier) != nil }

    /// Adds a freshly loaded `object`, unless another thread added a live instance first: then that
    /// one is returned (and `object` dropped), so everyone shares one instance.
    func insertLoaded(_ object: AnyObject, key: IdentifierKey, revision: String) -> AnyObject {
        lock.withLock {
            if !entries.hasRoom(for: 1) { sweep(reserving: 1) }
            let (slot, found) = entries.find(key)
            if found {
                let entry = entries.value(at: slot)
                if !entry.pointee.deleted, let existing = entry.pointee.object { return existing }
                entry.pointee = Entry(object: object, revision: revision)
            } else {
                entries.insert(key, Entry(object: object, revision: revision), at: slot)
            }
            return object
        }
    }

    /// Takes in what a committed transaction loaded, refreshed and saved (its records, moved out of
    /// `records`), under one lock: loads yield to a live instance another thread loaded meanwhile,
    /// refreshes replace, and saves (which superseded any load of the same identifier in the
    /// transaction) replace too.
    func commit(draining records: inout IdentifierTable<WriteContext.Record>) {
        lock.withLock {
            // Room for every record at once: no rebuild in the loop, which holds slots.
            if !entries.hasRoom(for: records.count) { sweep(reserving: records.count) }
            records.drain { key, record in
                switch record.outcome {
                case .none:
                    break
                case .written(let written):
                    set(key, to: Entry(object: written.object, revision: written.revision, deleted: written.deleted))
                case .loaded(let loaded):
                    guard let object = loaded.object else {
                        if loaded.replacing { remove(key) }
                        return
                    }
                    if loaded.replacing {
                        set(key, to: Entry(object: object, revision: loaded.revision))
                        return
                    }
                    let (slot, found) = entries.find(key)
                    if !found {
                        entries.insert(key, Entry(object: object, revision: loaded.revision), at: slot)
                    } else if entries.value(at: slot).pointee.deleted || entries.value(at: slot).pointee.object == nil {
                        entries.value(at: slot).pointee = Entry(object: object, revision: loaded.revision)
                    }
                }
            }
        }
    }

    /// Replaces whatever instance `identifier` had with `object` (a refresh), or removes it.
    func replace(_ key: IdentifierKey, with object: AnyObject?, revision: String) {
        lock.withLock {
            if let object {
                if !entries.hasRoom(for: 1) { sweep(reserving: 1) }
                set(key, to: Entry(object: object, revision: revision))
            } else {
                remove(key)
            }
        }
    }

    /// Forgets every entry (the store was deleted).
    func removeAll() {
        lock.withLock { entries.removeAll() }
    }

    /// The number of entries whose object is alive.
    var liveCount: Int {
        lock.withLock {
            var live = 0
            entries.forEach { _, entry in if entry.pointee.object != nil { live += 1 } }
            return live
        }
    }

    // MARK: Under the lock

    /// Makes `entry` the one for `key`; the table has room for it.
    private func set(_ key: consuming IdentifierKey, to entry: consuming Entry) {
        let (slot, found) = entries.find(key)
        if found {
            entries.value(at: slot).pointee = entry
        } else {
            entries.insert(key, entry, at: slot)
        }
    }

    /// Makes `key` absent: its entry, if any, loses its object (and is swept out later).
    private func remove(_ key: IdentifierKey) {
        let (slot, found) = entries.find(key)
        if found { entries.value(at: slot).pointee.object = nil }
    }

    /// Rebuilds the table without the entries whose object is gone, with room for `extra` more.
    private func sweep(reserving extra: Int) {
        entries.rebuild(reserving: extra) { $0.pointee.object != nil }
    }
}
