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

    /// Deletes every object of every entity (the rows, not the files: other processes keep a valid
    /// store), then posts ``Foundation/Notification/Name/storageManagerDidResetStorage``.
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

extension Notification.Name {
    /// Posted (object: the manager) after ``StorageManagerType/reset()`` deleted every object.
    public static let storageManagerDidResetStorage = Notification.Name("StorageManagerDidResetStorage")
}
