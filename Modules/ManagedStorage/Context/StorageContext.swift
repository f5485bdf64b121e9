import Foundation
import GRDB

/// The ``StorageType`` ManagedStorage hands out: the writer's storage inside an operation, or the
/// read-only `viewStorage`.
///
/// One instance per row: fetching a row twice gives the same object. The writer's storage keeps its
/// objects until the operation ends; `viewStorage` keeps them only while you do (weakly), and a
/// fetch refreshes the values of an object it returns again.
final class StorageContext: StorageType {
    enum Access {
        /// Inside an operation: one connection, in an open `BEGIN IMMEDIATE` transaction.
        case writer(ContextStatements)
        /// `viewStorage`: each read is its own snapshot (from the pool, or the in-memory connection).
        case reader(any DatabaseReader)
        /// ``SQLiteStorageManager/read(_:)``: every read of the closure in one snapshot.
        case snapshot(ContextStatements)
        /// The operation ended; the storage no longer reads or writes.
        case ended
    }

    let model: ResolvedModel
    private(set) var access: Access
    private let report: @Sendable (StorageError) -> Void

    /// Registered objects by entity and row id; strong in the writer, weak in `viewStorage`.
    var registered: [ObjectIdentifier: RowRegistry] = [:]
    /// The last entity's registry, looked up once for the many rows of a fetch.
    var lastRegistry: (schema: ObjectIdentifier, registry: RowRegistry)?
    /// New objects in insertion order (with their instances, kept alive until saved).
    var inserted: [(backing: EntityBacking, object: AnyObject)] = []
    var updated: [ObjectIdentifier: EntityBacking] = [:]
    var updatedOrder: [EntityBacking] = []
    var deleted: [EntityBacking] = []
    /// The writer's backings that cache to-one targets (`EntityBacking.related`), emptied at the end.
    var cachingRelated: [EntityBacking] = []
    var nextTemporaryID: Int64 = -1
    var flushing = false
    /// Whether a flush wrote something since the last explicit save (fetches flush too, and a fetch
    /// is not a save: see ``hasChanges``).
    var writtenSinceSave = false

    /// The errors recorded during the operation (writer only); the first one fails it.
    var errors: [StorageError] = []
    /// What the saves of this operation changed, for the change stream.
    var changes = StorageChanges()

    enum Registration {
        /// An object ``kept`` holds (the writer's and a snapshot's): the map itself holds no reference,
        /// so freeing it is one free, not a release of every object in hash order.
        case kept(Unmanaged<AnyObject>)
        case weak(WeakObject)

        var object: AnyObject? {
            switch self {
            case .kept(let object): object.takeUnretainedValue()
            case .weak(let box): box.object
            }
        }
    }

    /// The objects the writer's storage and a snapshot's keep until the operation ends, in the order
    /// they were made (so they are released in about the order of their memory).
    @exclusivity(unchecked) var kept: [AnyObject] = []

    /// A custom migration stage's new storage: the non-optional columns the migration added are still
    /// empty (`NULL`) until the stage fills them. Such a value reads as its type's default, and stays
    /// `NULL` in the store unless the stage sets it (the migration then refuses the row).
    var fillsNewColumns = false

    final class WeakObject {
        weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }

    init(model: ResolvedModel, access: Access, report: @escaping @Sendable (StorageError) -> Void) {
        self.model = model
        self.access = access
        self.report = report
        if case .writer = access { isWriter = true } else { isWriter = false }
        link.context = self
    }

    /// What every object of this storage reaches it through: weak, since objects may outlive it.
    final class Link {
        weak var context: StorageContext?
    }

    /// The link this storage's objects share.
    let link = Link()

    /// The manager of `viewStorage` (for live results); `nil` for other storages.
    weak var manager: SQLiteStorageManager?

    /// Whether this is the writer's storage of an operation still running. Stored rather than
    /// derived from `access`: it is read on every property set.
    private(set) var isWriter: Bool

    /// Ends the operation: objects stop reading (the statements stay with their connection's cache).
    func end() {
        isWriter = false
        access = .ended
        // A backing caches the backings its to-one relationships point at (`related`), so the two
        // ends of a one-to-one pair cache each other: without this they would outlive the operation.
        for backing in cachingRelated { backing.related.removeAll() }
        cachingRelated.removeAll()
        for (backing, _) in inserted { backing.isNewInWriter = false }
        registered.removeAll()
        lastRegistry = nil
        kept.removeAll()
        inserted.removeAll()
        updated.removeAll()
        updatedOrder.removeAll()
        deleted.removeAll()
    }

    // MARK: Errors

    /// Records an error: in the writer it fails the operation; in `viewStorage` it is reported now.
    func record(_ error: StorageError) {
        switch access {
        case .writer, .snapshot: errors.append(error)
        case .reader, .ended: report(error)
        }
    }

    func allowsMutation(_ what: String) -> Bool {
        switch access {
        case .writer: return true
        case .reader, .snapshot:
            record(.readOnlyStorage(operation: what))
            return false
        case .ended:
            report(.objectNotInStorage("\(what): the operation this object belongs to has ended"))
            return false
        }
    }

    // MARK: Connections

    /// Runs `body` with the statements of a connection: the writer's own, or a pooled reader's.
    func withStatements<R>(_ body: (ContextStatements) throws(StorageError) -> R) throws(StorageError) -> R {
        switch access {
        case .writer(let statements), .snapshot(let statements):
            return try body(statements)
        case .reader(let pool):
            do {
                return try pool.read { db -> R in
                    let statements = try ContextStatements(reading: db)
                    do { return try body(statements) } catch { throw error }
                }
            } catch let error as StorageError {
                throw error
            } catch {
                throw StorageError(error)
            }
        case .ended:
            throw .objectNotInStorage("the operation this storage belongs to has ended")
        }
    }

    // MARK: StorageType

    func allObjects<T: StorageEntity>(ofType type: T.Type, matching predicate: Predicate<T>?,
                                      sortedBy descriptors: [SortDescriptor<T>]?) -> [T] {
        query(type, predicate, descriptors, limit: nil)
    }

    func countObjects<T: StorageEntity>(ofType type: T.Type) -> Int {
        countObjects(ofType: type, matching: nil)
    }

    func countObjects<T: StorageEntity>(ofType type: T.Type, matching predicate: Predicate<T>?) -> Int {
        guard let schema = schema(for: T.self) else { return 0 }
        do {
            let condition = try predicate.map { predicate throws(StorageError) in try QueryTranslator(schema: schema).whereClause(predicate) }
            return count(schema, where: condition)
        } catch {
            record(error)
            return 0
        }
    }

    func firstObject<T: StorageEntity>(ofType type: T.Type) -> T? {
        query(type, nil, nil, limit: 1).first
    }

    func firstObject<T: StorageEntity>(ofType type: T.Type, matching predicate: Predicate<T>?) -> T? {
        query(type, predicate, nil, limit: 1).first
    }

    func insertNewObject<T: StorageEntity>(ofType type: T.Type) -> T {
        guard let schema = model.byName[T.entityName] else {
            record(.model("\(T.self) is not one of the model's entities"))
            return Self.detachedObject(of: type)
        }
        guard allowsMutation("insertNewObject(ofType: \(T.self))") else {
            return Self.detachedObject(of: type, schema: schema)
        }
        let backing = EntityBacking(schema: schema, rowID: nextTemporaryID, values: schema.defaultValues, context: self)
        nextTemporaryID -= 1
        backing.isInserted = true
        backing.isNewInWriter = true
        let object = T(_$backing: backing)
        backing.object = object
        inserted.append((backing, object))
        return object
    }

    /// An object that belongs to no storage: it can be read and set, and is never written (what a
    /// refused `insertNewObject` returns, since the method cannot fail).
    static func detachedObject<T: StorageEntity>(of type: T.Type, schema: EntitySchema? = nil) -> T {
        let schema = schema ?? EntitySchema(T.self)
        let backing = EntityBacking(schema: schema, rowID: 0, values: schema.defaultValues, context: nil)
        let object = T(_$backing: backing)
        backing.object = object
        return object
    }

    func loadObject<T: StorageEntity>(ofType type: T.Type, with objectID: StorageObjectID) -> T? {
        // An object ID names the table (which a migration's old model may reach under a new name).
        guard objectID.entityName == (model.byName[T.entityName]?.name ?? T.entityName) else { return nil }
        return object(ofType: type, rowID: objectID.rowID)
    }

    func deleteObject<T: StorageEntity>(_ object: T) {
        guard allowsMutation("deleteObject(\(T.self))") else { return }
        let backing = object._$backing
        guard backing.context === self else {
            record(.objectNotInStorage("deleteObject: the \(T.self) belongs to another storage"))
            return
        }
        delete(backing)
    }

    func deleteAllObjects<T: StorageEntity>(ofType type: T.Type) {
        guard allowsMutation("deleteAllObjects(ofType: \(T.self))"), let schema = schema(for: T.self) else { return }
        for object in fetch(schema, where: nil, orderBy: nil, limit: nil) {
            if let entity = object as? any StorageEntity { delete(entity._$backing) }
        }
    }

    func saveIfNeeded() {
        guard isWriter else { return }
        flush()
        if errors.isEmpty { writtenSinceSave = false }
    }

    func save() throws(StorageError) {
        guard isWriter else { return }
        flush()
        if let error = errors.first { throw error }
        writtenSinceSave = false
    }

    var hasChanges: Bool {
        guard isWriter else { return false }
        return writtenSinceSave || !inserted.isEmpty || !deleted.isEmpty
            || updatedOrder.contains { $0.changeCount > 0 && !$0.isDeleted }
    }

    func perform(_ closure: @escaping () -> Void) {
        closure()
    }

    // MARK: Change tracking

    func noteChanged(_ backing: EntityBacking) {
        guard !backing.isInserted, backing.rowID > 0, !flushing else { return }
        let key = ObjectIdentifier(backing)
        if updated[key] == nil {
            updated[key] = backing
            updatedOrder.append(backing)
        }
    }

    func flushForPermanentID() {
        if isWriter { flush() }
    }
}
