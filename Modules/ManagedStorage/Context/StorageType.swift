import Foundation

/// What an operation sees: fetch, insert, delete and save objects. WooCommerce's `StorageType`, with
/// typed predicates and sort descriptors in place of `NSPredicate` and `NSSortDescriptor`.
///
/// The methods keep WooCommerce's non-throwing shapes, so errors are deferred: inside
/// `performAndSave`, the first error (a bad stored value, an unsupported predicate, a denied delete,
/// a failed statement) rolls the whole operation back and reaches its completion; on `viewStorage`,
/// which only reads, errors go to the manager's error stream at once. A failed fetch returns no objects.
///
/// ```swift
/// storageManager.performAndSave({ storage in
///     let order = storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == 42 })
///         ?? storage.insertNewObject(ofType: Order.self)
///     order.orderID = 42
///     order.status = "processing"
/// }, completion: nil, on: .main)
/// ```
///
/// A storage and its objects belong to one thread (the writer's queue, or the main actor for
/// `viewStorage`) and are not `Sendable`; pass ``StorageObjectID``s or read-only copies between them.
public protocol StorageType: AnyObject {
    /// The objects of `type` that match `predicate` (all when `nil`), sorted by `descriptors`.
    func allObjects<T: StorageEntity>(ofType type: T.Type, matching predicate: Predicate<T>?,
                                      sortedBy descriptors: [SortDescriptor<T>]?) -> [T]
    /// How many objects of `type` there are.
    func countObjects<T: StorageEntity>(ofType type: T.Type) -> Int
    /// How many objects of `type` match `predicate`.
    func countObjects<T: StorageEntity>(ofType type: T.Type, matching predicate: Predicate<T>?) -> Int
    /// Deletes `object`, applying each relationship's delete rule.
    func deleteObject<T: StorageEntity>(_ object: T)
    /// Deletes every object of `type`, applying delete rules.
    func deleteAllObjects<T: StorageEntity>(ofType type: T.Type)
    /// The first object of `type` (the oldest row).
    func firstObject<T: StorageEntity>(ofType type: T.Type) -> T?
    /// The first object of `type` that matches `predicate`.
    func firstObject<T: StorageEntity>(ofType type: T.Type, matching predicate: Predicate<T>?) -> T?
    /// A new object of `type`, with every attribute at its default (zero, empty, `false`, `nil`).
    func insertNewObject<T: StorageEntity>(ofType type: T.Type) -> T
    /// The object with `objectID`, or `nil` when there is none (deleted, or never saved).
    func loadObject<T: StorageEntity>(ofType type: T.Type, with objectID: StorageObjectID) -> T?
    /// Writes pending changes into the operation's transaction; the transaction commits when the
    /// operation returns. Nothing to do on `viewStorage`.
    func saveIfNeeded()
    /// Runs `closure` on the storage's own thread: at once for an operation's storage and for
    /// `viewStorage` (the caller is on it); for ``StorageManagerType/writerDerivedStorage``, as one
    /// write operation on the writer, waiting for it.
    func perform(_ closure: @escaping () -> Void)

    /// Whether changes were made since the last ``save()`` or ``saveIfNeeded()``: an insert, a
    /// changed property, a delete. NSManagedObjectContext's `hasChanges`.
    ///
    /// A fetch in the writer writes pending changes into the transaction so the query sees them, but
    /// does not count as a save: `hasChanges` stays `true` until you save. Deleting an object inserted
    /// since the last save leaves no change, unless something wrote the insert meanwhile (a fetch, or
    /// the delete rules of an entity with to-many relationships, which read its members): then both
    /// statements ran, and it counts. Always `false` on `viewStorage` (it refuses mutations) and on
    /// the storage of an operation that has ended.
    var hasChanges: Bool { get }

    /// Writes pending changes into the operation's transaction, and throws the first error recorded
    /// in the operation so far. NSManagedObjectContext's `save()`.
    ///
    /// The transaction still commits only when the operation returns, and an error recorded earlier
    /// rolls it back even if you catch what `save()` throws. Nothing to do on `viewStorage`, whose
    /// mutations are refused (and reported) when attempted.
    ///
    /// - Throws: the first ``StorageError`` of the operation (a failed statement, a denied delete, a
    ///   bad stored value).
    func save() throws(StorageError)
}

extension StorageType {
    /// All objects of `type`, oldest first.
    public func allObjects<T: StorageEntity>(ofType type: T.Type) -> [T] {
        allObjects(ofType: type, matching: nil, sortedBy: nil)
    }

    /// The objects of `type` that match `predicate`, oldest first.
    public func allObjects<T: StorageEntity>(ofType type: T.Type, matching predicate: Predicate<T>?) -> [T] {
        allObjects(ofType: type, matching: predicate, sortedBy: nil)
    }

    /// All objects of `type`, sorted by `descriptors` (then oldest first).
    ///
    /// ```swift
    /// let all = storage.allObjects(ofType: Order.self, sortedBy: [SortDescriptor(\.total)])
    /// ```
    ///
    /// WooCommerce's `allObjects(ofType:sortedBy:)` takes `[NSSortDescriptor]`; here the descriptors
    /// are typed `SortDescriptor`s (see <doc:PortingFromWooCommerce>).
    public func allObjects<T: StorageEntity>(ofType type: T.Type, sortedBy descriptors: [SortDescriptor<T>]?) -> [T] {
        allObjects(ofType: type, matching: nil, sortedBy: descriptors)
    }
}
