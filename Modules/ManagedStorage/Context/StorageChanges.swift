import Foundation
import GRDB

/// What one committed operation changed, by object. Delivered after the commit, for live results.
public struct StorageChanges: Sendable, Equatable {
    /// Objects inserted by the operation.
    public internal(set) var inserted: Set<StorageObjectID> = []
    /// Objects whose values changed (not counting inserted or deleted ones).
    public internal(set) var updated: Set<StorageObjectID> = []
    /// Objects deleted by the operation.
    public internal(set) var deleted: Set<StorageObjectID> = []
    /// Entities whose every row was deleted by ``SQLiteStorageManager/reset()``.
    public internal(set) var resetEntities: Set<String> = []
    /// Set when another process (or another program) committed: which objects changed is unknown,
    /// and the other sets are empty. Live results refetch and compare.
    public internal(set) var fromAnotherProcess = false
    /// Set when the stream that delivers this fell more than its buffer behind: the changes of the
    /// commits it could not hold are folded into this one, so which objects changed is unknown and
    /// the other sets are empty. Refetch, as for ``fromAnotherProcess``; nothing was lost, since a
    /// fetch now sees every folded commit. Live results do this themselves.
    public internal(set) var overflowed = false

    /// The manager's number for this change, in publication order (not part of equality).
    var sequence = 0

    public static func == (a: StorageChanges, b: StorageChanges) -> Bool {
        a.inserted == b.inserted && a.updated == b.updated && a.deleted == b.deleted
            && a.resetEntities == b.resetEntities && a.fromAnotherProcess == b.fromAnotherProcess
            && a.overflowed == b.overflowed
    }

    /// Whether nothing changed.
    public var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && resetEntities.isEmpty && !fromAnotherProcess
            && !overflowed
    }

    /// The objects of `entityName` the operation inserted, updated or deleted.
    func objects(of entityName: String) -> [StorageObjectID] {
        (inserted.union(updated).union(deleted)).filter { $0.entityName == entityName }
    }

    /// How many changes a stream of ``SQLiteStorageManager/changes()`` holds for a consumer that is
    /// behind before it folds them into one ``overflowed`` change.
    package static var streamBufferCapacity: Int { StorageEventHub.changeBufferCapacity }

    /// Stands for every change a stream could not hold, up to and including the one numbered `sequence`.
    static func overflow(through sequence: Int) -> StorageChanges {
        var changes = StorageChanges()
        changes.overflowed = true
        changes.sequence = sequence
        return changes
    }

    /// A commit by another process.
    static let fromAnotherProcess: StorageChanges = {
        var changes = StorageChanges()
        changes.fromAnotherProcess = true
        return changes
    }()
}
