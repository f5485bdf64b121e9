import Foundation

/// ``StorageManagerType/writerDerivedStorage``: a storage that stands for the operation running on
/// the caller's thread, and whose `perform` runs a block as one write operation, waiting for it.
///
/// It holds no objects and no transaction of its own, so one instance may be shared by every thread
/// (WooCommerce's stores keep it in a property); which storage it means is decided per call from
/// ``StorageBinding``.
final class DerivedStorage: StorageType, Sendable {
    private let owner: ObjectIdentifier
    /// Runs a block as one write operation of the owner, binding the storage, and returns after it.
    private let run: @Sendable (@escaping (StorageType) -> Void) -> Void
    private let report: @Sendable (StorageError) -> Void

    init(owner: ObjectIdentifier, run: @escaping @Sendable (@escaping (StorageType) -> Void) -> Void,
         report: @escaping @Sendable (StorageError) -> Void) {
        self.owner = owner
        self.run = run
        self.report = report
    }

    /// The storage of the operation running on this thread; reports a misuse when there is none.
    private func bound(_ call: @autoclosure () -> String) -> StorageType? {
        if let storage = StorageBinding.storage(for: owner) { return storage }
        report(.misuse("writerDerivedStorage.\(call()) was called outside a block given to its perform(_:); "
                       + "call it inside one (each block is one write operation)"))
        return nil
    }

    // MARK: StorageType

    func perform(_ closure: @escaping () -> Void) {
        if StorageBinding.storage(for: owner) != nil {
            // Already inside an operation of this manager on this thread: join it.
            closure()
            return
        }
        // The block's closures deferred by `saveDerivedType` come back here when this binding was
        // the manager's outermost (a test double's operation); a SQLiteStorageManager's own
        // operation binds first and runs them itself.
        let afterCommit = AfterCommitBox()
        run { [owner] storage in
            afterCommit.closures = StorageBinding.run(owner: owner, storage: storage) { closure() }.afterCommit
        }
        for deferred in afterCommit.closures { deferred() }
    }

    var hasChanges: Bool { StorageBinding.storage(for: owner)?.hasChanges ?? false }

    func save() throws(StorageError) {
        // Outside a block nothing is pending: each block committed when it returned.
        try StorageBinding.storage(for: owner)?.save()
    }

    func saveIfNeeded() {
        StorageBinding.storage(for: owner)?.saveIfNeeded()
    }

    func allObjects<T: StorageEntity>(ofType type: T.Type, matching predicate: Predicate<T>?,
                                      sortedBy descriptors: [SortDescriptor<T>]?) -> [T] {
        bound("allObjects(ofType: \(T.self))")?.allObjects(ofType: type, matching: predicate, sortedBy: descriptors) ?? []
    }

    func countObjects<T: StorageEntity>(ofType type: T.Type) -> Int {
        bound("countObjects(ofType: \(T.self))")?.countObjects(ofType: type) ?? 0
    }

    func countObjects<T: StorageEntity>(ofType type: T.Type, matching predicate: Predicate<T>?) -> Int {
        bound("countObjects(ofType: \(T.self))")?.countObjects(ofType: type, matching: predicate) ?? 0
    }

    func deleteObject<T: StorageEntity>(_ object: T) {
        bound("deleteObject(\(T.self))")?.deleteObject(object)
    }

    func deleteAllObjects<T: StorageEntity>(ofType type: T.Type) {
        bound("deleteAllObjects(ofType: \(T.self))")?.deleteAllObjects(ofType: type)
    }

    func firstObject<T: StorageEntity>(ofType type: T.Type) -> T? {
        bound("firstObject(ofType: \(T.self))")?.firstObject(ofType: type)
    }

    func firstObject<T: StorageEntity>(ofType type: T.Type, matching predicate: Predicate<T>?) -> T? {
        bound("firstObject(ofType: \(T.self))")?.firstObject(ofType: type, matching: predicate)
    }

    func insertNewObject<T: StorageEntity>(ofType type: T.Type) -> T {
        guard let storage = bound("insertNewObject(ofType: \(T.self))") else { return StorageContext.detachedObject(of: type) }
        return storage.insertNewObject(ofType: type)
    }

    func loadObject<T: StorageEntity>(ofType type: T.Type, with objectID: StorageObjectID) -> T? {
        bound("loadObject(ofType: \(T.self))")?.loadObject(ofType: type, with: objectID)
    }
}

/// Carries a block's deferred closures from the writer back to the thread waiting for it.
// @unchecked Sendable: `closures` is written on the writer inside `run`, and read only after `run` returned (it waits for the block), never at the same time
private final class AfterCommitBox: @unchecked Sendable {
    var closures: [() -> Void] = []
}
