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
/// is gone counts as absent and is swept out as the map grows.
final class IdentityMap: @unchecked Sendable {
    /// Stored inline in the dictionary (a struct), so a lookup touches one less allocation.
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
    private var entries: [String: Entry] = [:]
    private var sweepAt = 1024

    /// The live instance for `identifier`, unless its document was deleted through it.
    @inline(__always)
    func object(_ identifier: String) -> AnyObject? {
        lock.withLock {
            guard let entry = entries[identifier], !entry.deleted else { return nil }
            return entry.object
        }
    }

    /// The revision `object` was loaded or saved at, when it is the map's instance for its identifier.
    func revision(of object: AnyObject, identifier: String) -> String? {
        lock.withLock {
            guard let entry = entries[identifier], entry.object === object else { return nil }
            return entry.revision
        }
    }

    /// Whether a live instance of `identifier` is in the map.
    func contains(_ identifier: String) -> Bool { object(identifier) != nil }

    /// Adds a freshly loaded `object`, unless another thread added a live instance first: then that
    /// one is returned (and `object` dropped), so everyone shares one instance.
    func insertLoaded(_ object: AnyObject, identifier: String, revision: String) -> AnyObject {
        lock.withLock {
            if let entry = entries[identifier], !entry.deleted, let existing = entry.object { return existing }
            entries[identifier] = Entry(object: object, revision: revision)
            sweepIfLarge()
            return object
        }
    }

    /// Records that `object` was saved (or deleted) at `revision`: it becomes the map's instance.
    private func record(_ object: AnyObject, identifier: String, revision: String, deleted: Bool) {
        entries[identifier] = Entry(object: object, revision: revision, deleted: deleted)
    }

    /// Takes in what a committed transaction loaded, refreshed and saved, under one lock: loads yield
    /// to a live instance another thread loaded meanwhile, refreshes replace, and saves (recorded last)
    /// win over both.
    func commit(loaded: some Sequence<(identifier: String, loaded: WriteContext.Loaded)>,
                written: some Sequence<(identifier: String, object: AnyObject, revision: String, deleted: Bool)>) {
        lock.withLock {
            for (identifier, item) in loaded {
                if item.replacing {
                    entries[identifier] = item.object.map { Entry(object: $0, revision: item.revision) }
                } else if let object = item.object {
                    if let entry = entries[identifier], !entry.deleted, entry.object != nil { continue }
                    entries[identifier] = Entry(object: object, revision: item.revision)
                }
            }
            for item in written { record(item.object, identifier: item.identifier, revision: item.revision, deleted: item.deleted) }
            sweepIfLarge()
        }
    }

    /// Replaces whatever instance `identifier` had with `object` (a refresh), or removes it.
    func replace(_ identifier: String, with object: AnyObject?, revision: String) {
        lock.withLock {
            if let object {
                entries[identifier] = Entry(object: object, revision: revision)
            } else {
                entries[identifier] = nil
            }
        }
    }

    /// Forgets every entry (the store was deleted).
    func removeAll() {
        lock.withLock { entries = [:] }
    }

    /// The number of entries whose object is alive.
    var liveCount: Int { lock.withLock { entries.values.count { $0.object != nil } } }

    private func sweepIfLarge() {
        guard entries.count >= sweepAt else { return }
        entries = entries.filter { $0.value.object != nil }
        sweepAt = max(1024, entries.count * 2)
    }
}
