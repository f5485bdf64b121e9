import Foundation

/// A store with one read-only storage for the main actor and one background writer: WooCommerce's
/// `StorageManagerType`.
///
/// ```swift
/// storageManager.performAndSave({ storage in
///     let order = storage.insertNewObject(ofType: Order.self)
///     order.orderID = 1
/// }, completion: {
///     // Runs on the main queue after the commit.
/// }, on: .main)
///
/// let orders = storageManager.viewStorage.allObjects(ofType: Order.self, matching: nil, sortedBy: nil)
/// ```
///
/// Writes run one at a time, in the order they were submitted within a process; across processes the
/// store's write lock (`BEGIN IMMEDIATE`) excludes them. Objects never leave the operation that
/// fetched them: a `performAndSave` result must be `Sendable`, which entities are not (the compiler
/// says so), so hand out ``ReadOnlyConvertible/toReadOnly()`` copies or ``StorageObjectID``s.
public protocol StorageManagerType: AnyObject, Sendable {
    /// The storage for reading on the main actor. It never writes: a mutation through it is reported
    /// as ``StorageError/readOnlyStorage(operation:)`` and changes nothing.
    @MainActor var viewStorage: StorageType { get }

    /// Runs `operation` on the writer in one transaction, saves, and calls `completion` on `queue`.
    ///
    /// If anything in the operation fails, the whole transaction rolls back and the error goes to the
    /// manager's error stream and `onError` hook (one line on standard error when neither is set);
    /// `completion` is called either way.
    func performAndSave(_ operation: @escaping @Sendable (StorageType) -> Void,
                        completion: (@Sendable () -> Void)?, on queue: DispatchQueue)

    /// Runs `operation` on the writer in one transaction, saves, and calls `completion` on `queue` with
    /// the operation's result, or with the error that rolled the transaction back (one the operation
    /// threw, or the first ``StorageError`` recorded during it).
    func performAndSave<T: Sendable>(_ operation: @escaping @Sendable (StorageType) throws -> T,
                                     completion: @escaping @Sendable (Result<T, Error>) -> Void,
                                     on queue: DispatchQueue)

    /// A storage for writing from any thread, in blocks given to its `perform(_:)`: WooCommerce's
    /// `writerDerivedStorage`, kept so code written against it ports unchanged.
    ///
    /// ```swift
    /// let derivedStorage = storageManager.writerDerivedStorage
    /// derivedStorage.perform {
    ///     let order = derivedStorage.insertNewObject(ofType: Order.self)
    ///     order.orderID = 42
    /// }
    /// storageManager.saveDerivedType(derivedStorage: derivedStorage) {
    ///     DispatchQueue.main.async(execute: onCompletion)
    /// }
    /// ```
    ///
    /// Each `perform` block runs as one write operation (one transaction, committed when the block
    /// returns, rolled back with its first error, which goes where the `Void` `performAndSave`'s go),
    /// in submission order with every other write. `perform` waits for it: a block may capture what
    /// the caller's thread owns, which an asynchronous block could not do safely, and that is what
    /// lets WooCommerce's non-`Sendable` blocks compile unchanged. Inside a block (or inside any
    /// operation of the same manager) the derived storage is that operation's storage, and a nested
    /// `perform` runs at once in the same operation. Outside one, its methods are
    /// ``StorageError/misuse(_:)``, reported, and return nothing. Objects live for one block, as in
    /// `performAndSave`. New code uses `performAndSave`.
    ///
    /// The default implementation (for test doubles) runs each block through the generic
    /// `performAndSave` and waits on a semaphore, so that `performAndSave` must not need the calling
    /// thread to run.
    var writerDerivedStorage: StorageType { get }

    /// Calls `closure` once what was written through `derivedStorage` is committed: WooCommerce's
    /// `saveDerivedType(derivedStorage:_:)`.
    ///
    /// `writerDerivedStorage` commits each `perform` block when it returns, so outside a block there
    /// is nothing left to save and `closure` runs at once, on the caller's thread. Called inside a
    /// block (or an operation), `closure` runs right after that operation ends, committed or rolled
    /// back (its error goes where the `Void` `performAndSave`'s go), so a completion never waits
    /// forever. (WooCommerce's could call it on another thread; code that hops to the main queue
    /// inside it works either way.)
    func saveDerivedType(derivedStorage: StorageType, _ closure: @escaping () -> Void)

    /// Deletes every object of every entity (the rows, not the files: other processes keep a valid
    /// store), then posts `Notification.Name.StorageManagerDidResetStorage`.
    ///
    /// The rows are gone when it returns, but a `ResultsController` learns of the reset on the main
    /// actor, after the caller yields it: until then (for instance on the main actor right after the
    /// call) it still holds the old rows and `isEmpty` is false. Wait for `onDidResetContent` (or the
    /// manager's `resets()`), not for the return, before reading a controller.
    func reset()
}

extension StorageManagerType {
    /// `performAndSave` with the completion on the main queue.
    public func performAndSave(_ operation: @escaping @Sendable (StorageType) -> Void,
                               completion: (@Sendable () -> Void)? = nil) {
        performAndSave(operation, completion: completion, on: .main)
    }

    /// `performAndSave` with the completion on the main queue.
    public func performAndSave<T: Sendable>(_ operation: @escaping @Sendable (StorageType) throws -> T,
                                            completion: @escaping @Sendable (Result<T, Error>) -> Void) {
        performAndSave(operation, completion: completion, on: .main)
    }
}

extension StorageManagerType {
    /// A derived storage whose blocks run through this manager's generic `performAndSave`, one at a
    /// time, each waited for; see the requirement.
    public var writerDerivedStorage: StorageType {
        DerivedStorage(owner: ObjectIdentifier(self), run: { [self] block in
            let done = DispatchSemaphore(value: 0)
            // The block is not `Sendable`: it may capture what the calling thread owns. The caller
            // waits below until the operation is over, so nothing else touches those captures.
            let unchecked = UncheckedBlock(block)
            performAndSave({ storage in unchecked.run(storage) }, completion: { done.signal() }, on: .global())
            done.wait()
        }, report: { error in
            FileHandle.standardError.write(Data("ManagedStorage: \(error)\n".utf8))
        })
    }

    /// Runs `closure` after the operation in progress on this thread, if any, or now; see the requirement.
    public func saveDerivedType(derivedStorage: StorageType, _ closure: @escaping () -> Void) {
        if !StorageBinding.deferUntilCommitted(of: ObjectIdentifier(self), closure) { closure() }
    }
}

extension Notification.Name {
    /// Posted (object: the manager) after ``StorageManagerType/reset()`` deleted every object:
    /// WooCommerce's name, spelled as they declare it.
    public static let StorageManagerDidResetStorage = Notification.Name("StorageManagerDidResetStorage")

    /// ``StorageManagerDidResetStorage`` in Swift's naming style: the same name.
    public static let storageManagerDidResetStorage = StorageManagerDidResetStorage
}
