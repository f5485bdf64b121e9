import Foundation
import GRDB

/// What one committed operation changed, by object. Delivered after the commit, for live results.
///
/// ```swift
/// for await change in manager.changes() {
///     if change.objectsAreKnown {
///         print("inserted", change.inserted.count, "updated", change.updated.count,
///               "deleted", change.deleted.count)
///     } else {
///         // Another program's commit, or a stream that fell behind: fetch again.
///     }
/// }
/// ```
public struct StorageChanges: Sendable, Equatable {
    /// Objects inserted by the operation.
    public internal(set) var inserted: Set<StorageObjectID> = []
    /// Objects whose values changed (not counting inserted or deleted ones).
    public internal(set) var updated: Set<StorageObjectID> = []
    /// Objects deleted by the operation.
    public internal(set) var deleted: Set<StorageObjectID> = []
    /// Entities whose every row was deleted by ``SQLiteStorageManager/reset()`` (another manager's, with
    /// ``fromAnotherProcess``).
    public internal(set) var resetEntities: Set<String> = []
    /// Set for a commit made by another manager of the store file: another process's (or another
    /// program's), or another ``SQLiteStorageManager`` of the same file in this process; never for
    /// this manager's own commits. Such commits are found by polling
    /// (``StorageConfiguration/otherProcessPollInterval``) and delivered one change per commit, in
    /// commit order.
    ///
    /// Which objects such a commit changed comes from the store's change log, which ManagedStorage
    /// writes in each operation's own transaction: ``inserted``, ``updated`` and ``deleted`` name them
    /// as for a commit of this manager, and live results apply them the same way. When they cannot be
    /// known, the sets are empty and ``objectsAreKnown`` is `false` (refetch): a program that does not
    /// use ManagedStorage wrote the store (it logs nothing), the log entries were trimmed
    /// (``StorageConfiguration/changeLogLimit``) before this manager read them, or an entry does not
    /// decode. Another manager's ``SQLiteStorageManager/reset()`` arrives with ``resetEntities``.
    public internal(set) var fromAnotherProcess = false
    /// Set when the stream that delivers this fell more than its buffer behind: the changes of the
    /// commits it could not hold are folded into this one, so which objects changed is unknown and
    /// the other sets are empty. Refetch, as when ``objectsAreKnown`` is `false` for any reason;
    /// nothing was lost, since a fetch now sees every folded commit. Live results do this themselves.
    public internal(set) var overflowed = false
    /// Set when somebody committed but which objects changed is unknown (see ``fromAnotherProcess``).
    var objectsUnknown = false

    /// Whether ``inserted``, ``updated`` and ``deleted`` name every object this change concerns, so a
    /// consumer can apply it object by object.
    ///
    /// `false` for an ``overflowed`` change, for another process's commit whose objects are unknown
    /// (see ``fromAnotherProcess``), and for a reset (``resetEntities``, whose deleted objects are not
    /// listed): then refetch what you show.
    public var objectsAreKnown: Bool { !objectsUnknown && !overflowed && resetEntities.isEmpty }

    /// The manager's number for this change, in publication order (not part of equality).
    var sequence = 0

    public static func == (a: StorageChanges, b: StorageChanges) -> Bool {
        a.inserted == b.inserted && a.updated == b.updated && a.deleted == b.deleted
            && a.resetEntities == b.resetEntities && a.fromAnotherProcess == b.fromAnotherProcess
            && a.overflowed == b.overflowed && a.objectsUnknown == b.objectsUnknown
    }

    /// Whether nothing changed.
    public var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty && resetEntities.isEmpty && !objectsUnknown
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

    /// A commit by another process (or program) whose objects are unknown: live results refetch.
    static let unknownFromAnotherProcess: StorageChanges = {
        var changes = StorageChanges()
        changes.fromAnotherProcess = true
        changes.objectsUnknown = true
        return changes
    }()
}
