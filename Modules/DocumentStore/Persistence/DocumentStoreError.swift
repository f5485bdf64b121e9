import Foundation

/// Everything DocumentStore reports: what failed, where, and why. Nothing is changed when one is thrown
/// from a save or a transaction: it rolled back whole.
///
/// Most operations throw it typed (`throws(DocumentStoreError)`); the ones that run your
/// `init?(with:from:)` or `save(to:)` throw `any Error`: this, or what that code of yours throws:
///
/// ```swift
/// do {
///     try persistence.save(shape)
/// } catch DocumentStoreError.conflict(let conflict) {
///     // reload with persistence.refresh(_:) and try again
/// } catch DocumentStoreError.busyTimeout(let file, let seconds) {
///     // another process held the write lock of file for more than seconds
/// }
/// ```
public enum DocumentStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database could not be opened or created (a read-only folder, a full disk): the file and why.
    case cannotOpen(file: String, cause: String)
    /// The file is not a database or is damaged. At open, it is moved aside instead when it can be
    /// (``corruptStoreMovedAside(file:movedTo:cause:)``); this is thrown when it cannot (its folder is
    /// read-only), or when a read meets a damaged page later. The file is left as it is.
    case corruptDatabase(file: String, cause: String)
    /// The file was not a valid database when it was opened: it was moved to `movedTo` (with its
    /// `-wal` and `-shm` files) and a new, empty store was created. Reported in
    /// ``Persistence/recoveredFromCorruption``, never thrown.
    case corruptStoreMovedAside(file: String, movedTo: String, cause: String)
    /// The database was written by a newer program (its schema version is above this program's).
    case schemaNewerThanProgram(file: String, version: Int)
    /// The disk (or the process's file size limit) is full; the transaction was rolled back.
    case diskFull(file: String)
    /// The file or its folder cannot be written.
    case readOnly(file: String)
    /// Another process kept the write lock longer than the configured busy timeout.
    case busyTimeout(file: String, seconds: Double)
    /// SQLite refused a statement: its extended result code, its message and the SQL.
    case sqlite(code: Int32, message: String, sql: String?)
    /// A save or delete was based on a revision that is no longer the document's current one, or a new
    /// object was saved under an identifier that already has a document. Nothing was written.
    case conflict(DocumentConflict)
    /// A stored document has a kind no type was registered for (``Persistence/register(persistableKind:)``).
    case unregisteredKind(kind: String, identifier: String)
    /// A stored document's kind is not the requested type or one of its subclasses.
    case wrongKind(identifier: String, expected: String, found: String)
    /// A relationship names a document that does not exist (or was deleted).
    case missingDocument(identifier: String, kind: String)
    /// Stored or given JSON text is not valid JSON: the document (when known), the byte offset and why.
    case malformedJSON(identifier: String?, offset: Int, reason: String)
    /// A value cannot be stored as JSON (NaN, an infinity, a type with no JSON form): the document and path.
    case invalidValue(identifier: String, path: String, reason: String)
    /// The type's `init?(with:from:)` returned `nil` for a stored document.
    case documentRejected(identifier: String, kind: String)
    /// Loading the document needs the document itself first (a cycle of eager loads); use ``Lazy`` for one side.
    case cyclicLoad(identifier: String)
    /// The default `save(to:)` met a stored property whose type has no JSON form: the document, its
    /// kind, the property (a dotted path into arrays and dictionaries) and the type.
    case unstorableProperty(identifier: String, kind: String, property: String, type: String)
    /// ``PropertyReader`` found a property missing, or holding JSON of another type: the document, the
    /// stored key, the type asked for and what the document holds (`missing` when absent).
    case unreadableProperty(identifier: String, property: String, expected: String, found: String)
    /// A loaded object's `identifier` is not its document's and the store cannot set it (it is not a
    /// stored `String` property): the kind, the document and the identifier the object reports.
    case identifierNotStored(kind: String, identifier: String, found: String)
    /// ``Persistence/deleteDatabase()`` refused: another connection (another `Persistence`, a live
    /// query, an unfinished ``DocumentSequence``, another process) has the store open.
    case databaseInUse(file: String)
    /// The store was deleted through this `Persistence` (``Persistence/deleteDatabase()``).
    case databaseDeleted(file: String)
    /// ``Persistence/deleteDatabase()`` removed the files but could not flush their folder (`fsync`), so
    /// a power cut may bring the store back: the file and why. The instance is closed all the same.
    case deletionNotDurable(file: String, cause: String)
    /// The query cannot be expressed: names the part.
    case unsupportedQuery(String)
    /// The store was used in a way it does not allow (a save from inside another store's transaction
    /// through the wrong thread, a revision that does not parse).
    case misuse(String)

    public var description: String {
        switch self {
        case .cannotOpen(let file, let cause): "cannot open \(file): \(cause)"
        case .corruptDatabase(let file, let cause): "\(file) is not a valid document database (\(cause)); it was left untouched"
        case .corruptStoreMovedAside(let file, let movedTo, let cause):
            "\(file) was not a valid database (\(cause)); it was moved to \(movedTo) and a new store was created"
        case .schemaNewerThanProgram(let file, let version): "\(file) has schema version \(version), newer than this program knows"
        case .diskFull(let file): "\(file): the disk is full; nothing was written"
        case .readOnly(let file): "\(file) cannot be written (read-only file or folder); nothing was written"
        case .busyTimeout(let file, let seconds): "\(file): another connection kept the write lock for more than \(seconds) s"
        case .sqlite(let code, let message, let sql): "SQLite error \(code): \(message)" + (sql.map { " (in \($0))" } ?? "")
        case .conflict(let conflict): "\(conflict)"
        case .unregisteredKind(let kind, let identifier): "document \(identifier) has kind \(kind), which is not registered"
        case .wrongKind(let identifier, let expected, let found): "document \(identifier) is a \(found), not a \(expected)"
        case .missingDocument(let identifier, let kind): "no \(kind) document \(identifier)"
        case .malformedJSON(let identifier, let offset, let reason):
            (identifier.map { "document \($0): " } ?? "") + "malformed JSON at byte \(offset): \(reason)"
        case .invalidValue(let identifier, let path, let reason): "document \(identifier), \(path): \(reason)"
        case .documentRejected(let identifier, let kind): "\(kind).init(with:from:) returned nil for document \(identifier)"
        case .cyclicLoad(let identifier): "loading \(identifier) needs \(identifier) itself; make one side of the cycle Lazy"
        case .unstorableProperty(let identifier, let kind, let property, let type):
            "document \(identifier): \(kind).\(property) has type \(type), which has no JSON form; map it to nil in propertyMapping or save it yourself"
        case .unreadableProperty(let identifier, let property, let expected, let found):
            "document \(identifier): property \(property) should be \(expected) but is \(found)"
        case .identifierNotStored(let kind, let identifier, let found):
            "loaded \(kind) \(identifier) reports identifier \(found), and its identifier is not a stored String property the store can set"
        case .databaseInUse(let file): "\(file) is open elsewhere (another Persistence, a live query, an unfinished sequence or another process); it was not deleted"
        case .databaseDeleted(let file): "\(file) was deleted by deleteDatabase()"
        case .deletionNotDurable(let file, let cause):
            "\(file) was deleted, but its folder could not be flushed (\(cause)): a power cut may bring it back"
        case .unsupportedQuery(let what): "unsupported query: \(what)"
        case .misuse(let what): what
        }
    }
}
