import Foundation

/// Everything ManagedStorage reports: what failed, where, and why.
///
/// Errors of an operation are deferred, as `StorageType`'s methods keep WooCommerce's non-throwing
/// shapes: the first error recorded during an operation rolls its whole transaction back and reaches
/// the generic `performAndSave`'s `Result` (or ``SQLiteStorageManager/errors()`` and `onError` for the
/// `Void` form). Errors on `viewStorage` are reported there at once.
///
/// ```swift
/// do {
///     try await manager.write { storage in
///         guard let customer = storage.firstObject(ofType: Customer.self) else { return }
///         storage.deleteObject(customer)
///     }
/// } catch StorageError.deleteDenied(let entity, let relationship) {
///     print("\(entity) still has \(relationship)")    // its orders (delete rule .deny)
/// } catch {
///     print(error)                                     // the description says what, where and why
/// }
/// ```
public enum StorageError: Error, Sendable, CustomStringConvertible, Equatable {
    /// SQLite refused a statement: its (extended) result code, its message, and the SQL.
    case sqlite(code: Int32, message: String, sql: String?)
    /// Another connection held the write lock for longer than the configured busy timeout.
    case busyTimeout(file: String, seconds: Double)
    /// A mutation (`insertNewObject`, a property set, a delete) was attempted through read-only storage.
    case readOnlyStorage(operation: String)
    /// A stored value does not fit its property's type (a `NULL` in a non-optional column, text in an integer one).
    case badValue(entity: String, property: String, rowID: Int64, found: String)
    /// A predicate or sort uses something that has no SQL translation; names the part.
    case unsupportedQuery(String)
    /// The disk (or the process's file size limit) refused a write; the transaction was rolled back
    /// and the store keeps what it had.
    case diskFull(file: String)
    /// The store's file or folder cannot be written; the transaction was rolled back.
    case readOnly(file: String)
    /// A `.deny` relationship still had objects when its object was deleted.
    case deleteDenied(entity: String, relationship: String)
    /// An object was used in a storage it does not belong to, or after its operation ended.
    case objectNotInStorage(String)
    /// The entity declarations do not form a valid model (a missing target, an ambiguous inverse).
    case model(String)
    /// A migration threw; its transaction was rolled back, so the store is what it was before the
    /// pending migrations.
    case migrationFailed(version: String, underlying: String)
    /// The store was written by a newer program: it has migrations this program does not know.
    case schemaNewerThanProgram(file: String, unknownVersions: [String])
    /// After migrating, a table lacks columns the entities declare.
    case schemaMismatch(entity: String, missingColumns: [String])
    /// After migrating, the store's table for `entity` differs from the declarations in a way that
    /// would make reads or writes fail: `column` (or the table itself, `nil`) is missing or is not
    /// what the declaration makes it. Reported at open, before any fetch.
    case schemaDiffers(entity: String, column: String?, expected: String, found: String)
    /// A migration must add the non-optional `attribute` to `entity`'s existing rows, and the
    /// declaration gives no value for them: declare one with `@Attribute(default:)`, make the
    /// attribute optional, or fill it in a custom stage (``StorageSchemaVersion/custom(_:from:to:stage:)``).
    /// The store is unchanged.
    case migrationNeedsDefault(entity: String, attribute: String)
    /// A migration makes `attribute` non-optional, and `rows` rows of `entity` hold no value for it;
    /// the store is unchanged.
    case migrationNeedsValue(entity: String, attribute: String, rows: Int)
    /// A migration changes the type of `attribute`, and `rows` rows of `entity` hold a value the new
    /// type cannot hold (an `Int` past `Int8`'s range, text no case of an enum has, an integer past 2^53
    /// that a `Double` would round); `example` names the first. Change or remove those values in a
    /// ``StorageSchemaVersion`` that runs before, or in a custom stage. The store is unchanged.
    case migrationCannotConvert(entity: String, attribute: String, rows: Int, example: String)
    /// The store's model is not this program's and ``StorageConfiguration/incompatibleStore`` is
    /// ``StorageConfiguration/IncompatibleStorePolicy/moveAsideAndStartEmpty``: the store and its
    /// `-wal` and `-shm` files were moved to `movedTo`, never deleted, and an empty store opened.
    /// `cause` is the error opening would have thrown.
    case incompatibleStoreMovedAside(file: String, movedTo: String, cause: String)
    /// After a migration, `rows` rows of `entity` point through `relationship` at no `target` (a
    /// relationship that now points at another entity); the store is unchanged.
    case migrationBrokeRelationship(entity: String, relationship: String, target: String, rows: Int)
    /// The store file is damaged or not a database, and it was not moved aside: at open when its
    /// folder is read-only (the file is left untouched), or when a read meets a damaged page later.
    /// At open it is otherwise moved aside instead (``corruptStoreMovedAside(file:movedTo:cause:)``).
    case corruptDatabase(file: String, cause: String)
    /// The store file was corrupt or not a database; it was moved aside and a fresh store opened.
    case corruptStoreMovedAside(file: String, movedTo: String, cause: String)
    /// The store could not be opened or created: the file and the cause.
    case cannotOpen(file: String, cause: String)
    /// The operation threw this error; the transaction was rolled back.
    case operationFailed(String)
    /// The manager was asked to do something while doing something that forbids it (such as `reset()`
    /// inside an operation).
    case misuse(String)

    public var description: String {
        switch self {
        case .sqlite(let code, let message, let sql):
            "SQLite error \(code): \(message)" + (sql.map { " (in \($0))" } ?? "")
        case .busyTimeout(let file, let seconds):
            "\(file): another connection kept the write lock for more than \(seconds) s"
        case .diskFull(let file):
            "\(file): the disk is full (or the file reached the process's size limit); nothing of the transaction was written"
        case .readOnly(let file):
            "\(file) cannot be written (a read-only file or folder); nothing of the transaction was written"
        case .readOnlyStorage(let operation):
            "\(operation): viewStorage is read-only; write with performAndSave"
        case .badValue(let entity, let property, let rowID, let found):
            "\(entity) row \(rowID): \(property) holds \(found), which its type cannot hold"
        case .unsupportedQuery(let what):
            "this query cannot be translated to SQL: \(what)"
        case .deleteDenied(let entity, let relationship):
            "cannot delete the \(entity): its \(relationship) relationship (delete rule .deny) is not empty"
        case .objectNotInStorage(let what):
            what
        case .model(let what):
            "invalid storage model: \(what)"
        case .migrationFailed(let version, let underlying):
            "migration \(version) failed, the store is unchanged: \(underlying)"
        case .schemaNewerThanProgram(let file, let unknown):
            "\(file) was written by a newer program (unknown migrations: \(unknown.joined(separator: ", ")))"
        case .schemaMismatch(let entity, let missing):
            "the \(entity) table lacks the declared columns \(missing.joined(separator: ", ")); add a StorageSchemaVersion that creates them"
        case .schemaDiffers(let entity, let column, let expected, let found):
            "the store's \(entity) table\(column.map { ", column \($0)," } ?? "") is \(found), where the declarations make it \(expected); add a StorageSchemaVersion that changes it"
        case .migrationNeedsDefault(let entity, let attribute):
            "the migration adds \(entity).\(attribute) to existing rows but it is not optional and declares no default; declare @Attribute(default:), make it optional, or fill it in a custom stage (the store is unchanged)"
        case .migrationNeedsValue(let entity, let attribute, let rows):
            "the migration makes \(entity).\(attribute) non-optional, but \(rows) rows hold no value for it; declare @Attribute(default:) or fill it in a custom stage (the store is unchanged)"
        case .migrationBrokeRelationship(let entity, let relationship, let target, let rows):
            "after the migration, \(rows) rows of \(entity) point through \(relationship) at no \(target) (the store is unchanged)"
        case .migrationCannotConvert(let entity, let attribute, let rows, let example):
            "the migration changes the type of \(entity).\(attribute), but \(rows) rows hold a value the new type cannot hold (\(example)); change them in a StorageSchemaVersion first (the store is unchanged)"
        case .incompatibleStoreMovedAside(let file, let movedTo, let cause):
            "\(file) did not fit this program's model (\(cause)); it was moved to \(movedTo) and a new, empty store was created"
        case .corruptDatabase(let file, let cause):
            "\(file) is not a valid database (\(cause)); it was left untouched"
        case .corruptStoreMovedAside(let file, let movedTo, let cause):
            "\(file) was not a valid database (\(cause)); it was moved to \(movedTo) and a new store was created"
        case .cannotOpen(let file, let cause):
            "cannot open \(file): \(cause)"
        case .operationFailed(let what):
            "the operation failed and was rolled back: \(what)"
        case .misuse(let what):
            what
        }
    }
}
