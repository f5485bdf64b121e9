import Foundation
import FileStorageKit
import GRDB
import GRDBSQLite
import SQLiteSupport
import Synchronization

/// The SQLite side of a `Persistence`: the pool (WAL, readers beside one writer), the schema, and the
/// mapping of SQLite's failures to ``DocumentStoreError``.
///
/// The schema (version 2, in `PRAGMA user_version`; version 1 stores are upgraded when opened):
/// - `documents`: one row per document: its current (winning) revision, kind, deleted flag and
///   canonical JSON body;
/// - `revisions`: each document's revision tree (parent links, generations); only leaves that are
///   not the winner keep a body;
/// - `changes`: the feed, one row per written revision in commit order (indexed by document and revision);
/// - `checkpoints`: named values a replicator writes in the same transaction as the documents.
final class DocumentDatabase: Sendable {
    let pool: DatabasePool
    let path: String
    let configuration: PersistenceConfiguration
    /// The save path's statements on the writer connection (``WriterStatement`` gives their slots).
    let writerStatements = StatementCache<DocumentStoreError>()
    /// Set once ``deleteFiles()`` removed the files and closed the pool: every access then throws.
    let isDeleted = Atomic<Bool>(false)

    static let schemaVersion = 2

    static let schema = [
        """
        CREATE TABLE documents (
            number INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            revision TEXT NOT NULL,
            deleted INTEGER NOT NULL,
            body TEXT NOT NULL)
        """,
        "CREATE INDEX documents_by_kind ON documents(kind) WHERE deleted = 0",
        """
        CREATE TABLE revisions (
            document INTEGER NOT NULL,
            revision TEXT NOT NULL,
            parent TEXT,
            generation INTEGER NOT NULL,
            deleted INTEGER NOT NULL,
            body TEXT,
            PRIMARY KEY (document, revision)) WITHOUT ROWID
        """,
        """
        CREATE TABLE changes (
            sequence INTEGER PRIMARY KEY,
            document INTEGER NOT NULL,
            revision TEXT NOT NULL,
            deleted INTEGER NOT NULL)
        """,
        "CREATE TABLE checkpoints (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
    ] + upgrades.flatMap { $0 }

    /// The statements that take a store from version `n + 1` to `n + 2`, in order.
    static let upgrades = [
        // Version 2: the feed by document and revision, so a revision pruned from the tree is known
        // to have been listed and is never inserted (nor listed) again, and purges find their rows.
        ["CREATE INDEX changes_by_document ON changes(document, revision)"],
    ]

    init(configuration: PersistenceConfiguration) throws(DocumentStoreError) {
        self.configuration = configuration
        let path = configuration.url.path
        self.path = path
        // The folder exists: `Persistence` made it before taking the store's lock.
        let pool: DatabasePool
        do {
            pool = try configuration.sqliteOptions.openPool(path: path, label: "DocumentStore(\(configuration.url.lastPathComponent))",
                                                            foreignKeys: true)
        } catch {
            throw Self.storeError(error, file: path, opening: true, busyTimeout: configuration.busyTimeout)
        }
        do {
            try pool.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                    if version > Self.schemaVersion {
                        throw DocumentStoreError.schemaNewerThanProgram(file: path, version: version)
                    }
                    if version == 0 {
                        if try db.tableExists("documents") {
                            // Readable, but another program's: not damaged, so never moved aside.
                            throw DocumentStoreError.cannotOpen(file: path, cause: "it has a documents table but no schema version: it was not made by DocumentStore, and is left as it is")
                        }
                        for statement in Self.schema { try db.execute(sql: statement) }
                        try db.execute(sql: "PRAGMA user_version = \(Self.schemaVersion)")
                    } else if version < Self.schemaVersion {
                        for statement in Self.upgrades[(version - 1)...].joined() { try db.execute(sql: statement) }
                        try db.execute(sql: "PRAGMA user_version = \(Self.schemaVersion)")
                    }
                    return .commit
                }
            }
        } catch {
            try? pool.close()
            throw Self.storeError(error, file: path, opening: true, busyTimeout: configuration.busyTimeout)
        }
        self.pool = pool
    }

    deinit {
        // Before the pool (and its writer connection) closes; a deleted store's pool is closed already.
        if !isDeleted.load(ordering: .acquiring) {
            pool.writeWithoutTransaction { _ in writerStatements.finalize() }
        }
    }

    /// Throws once the store was deleted.
    func checkNotDeleted() throws(DocumentStoreError) {
        if isDeleted.load(ordering: .acquiring) { throw .databaseDeleted(file: path) }
    }

    /// Runs `body` on a reader connection (a snapshot of the last commit).
    func read<R>(_ body: (Database) throws -> R) throws(DocumentStoreError) -> R {
        try checkNotDeleted()
        do {
            return try pool.read(body)
        } catch {
            throw Self.storeError(error, file: path, busyTimeout: configuration.busyTimeout)
        }
    }

    /// Runs `body` in an immediate transaction on the writer, committing when it returns.
    func write<R>(_ body: (Database) throws -> R) throws -> R {
        try checkNotDeleted()
        var result: R?
        var systemErrno: Int32 = 0
        do {
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE TRANSACTION")
                do {
                    result = try body(db)
                    try db.execute(sql: "COMMIT TRANSACTION")
                } catch {
                    // Read why the OS refused before the rollback's own calls can overwrite it.
                    systemErrno = sqlite3_system_errno(db.sqliteConnection)
                    if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
                    throw error
                }
            }
        } catch let error as DatabaseError {
            throw Self.storeError(error, file: path, systemErrno: systemErrno, busyTimeout: configuration.busyTimeout)
        } catch let error as DocumentStoreError {
            throw Self.storeError(error, file: path, systemErrno: systemErrno, busyTimeout: configuration.busyTimeout)
        }
        WriteAheadLog.bound(path: path, limit: configuration.walSizeLimit, writer: pool)
        return result!
    }

    /// A read transaction of its own (a new connection) that keeps seeing the last commit made before
    /// it, for iterations that read page by page. Not from inside a write transaction on this pool.
    func makeSnapshot() throws(DocumentStoreError) -> DatabaseSnapshot {
        try checkNotDeleted()
        do {
            return try pool.makeSnapshot()
        } catch {
            throw Self.storeError(error, file: path, busyTimeout: configuration.busyTimeout)
        }
    }

    /// The store error for any error thrown by GRDB or SQLite (others pass through as `.misuse`
    /// descriptions only when they are not already a ``DocumentStoreError``). A statement's
    /// ``DocumentStoreError/sqlite(code:message:sql:)`` is classified here, with why the OS refused
    /// (`systemErrno`) and the busy timeout its transaction waited.
    static func storeError(_ error: any Error, file: String?, opening: Bool = false, systemErrno: Int32 = 0,
                           busyTimeout: Duration) -> DocumentStoreError {
        let file = file ?? "the store"
        let failure: SQLiteFailure
        switch error {
        case DocumentStoreError.sqlite(let code, let message, let sql):
            failure = SQLiteFailure(code: code, message: message, sql: sql, file: file, systemErrno: systemErrno)
        case let error as DocumentStoreError:
            return error
        case let error as SQLiteFailure:
            failure = error
        case let error as DatabaseError:
            failure = SQLiteFailure(error, file: file, systemErrno: systemErrno)
        default:
            return .misuse("\(error)")
        }
        return DocumentStoreError(failure, file: file, opening: opening, busyTimeout: busyTimeout)
    }

    /// SQLite's cause when `error` is a damaged store, which opening moves aside.
    static func damage(_ error: DocumentStoreError) -> String? {
        switch error {
        case .corruptDatabase(_, let cause): cause
        default: nil
        }
    }
}

extension DocumentStoreError {
    /// The store error for a classified SQLite failure, one case per kind (SQLiteSupport's policy):
    /// busy is ``busyTimeout(file:seconds:)``, a damaged file ``corruptDatabase(file:cause:)`` (which
    /// opening moves aside), a full disk and a read-only file or folder their own cases, at open as
    /// later; an I/O error or anything else is ``cannotOpen(file:cause:)`` at open and
    /// ``sqlite(code:message:sql:)`` later.
    init(_ failure: SQLiteFailure, file: String, opening: Bool, busyTimeout: Duration) {
        switch failure.kind {
        case .busy:
            self = .busyTimeout(file: file, seconds: Double(busyTimeout.components.seconds) + Double(busyTimeout.components.attoseconds) / 1e18)
        case .corrupt, .notADatabase:
            self = .corruptDatabase(file: file, cause: failure.cause)
        case .diskFull:
            self = .diskFull(file: file)
        case .readOnly:
            self = .readOnly(file: file)
        case .cannotOpen:
            self = .cannotOpen(file: file, cause: failure.cause)
        case .ioError, .constraint, .other:
            self = opening ? .cannotOpen(file: file, cause: failure.cause)
                           : .sqlite(code: failure.code, message: failure.message, sql: failure.sql)
        }
    }
}

extension DocumentStoreError: SQLiteStoreFailure {
    /// A failed statement's error; the transaction that ran it classifies it for its file
    /// (``DocumentDatabase/storeError(_:file:opening:systemErrno:busyTimeout:)``).
    package init(statementFailure failure: SQLiteFailure, file: String) {
        self = .sqlite(code: failure.code, message: failure.message, sql: failure.sql)
    }
}
