import Foundation
import GRDB
import SQLiteSupport

/// ManagedStorage's statement: SQLiteSupport's one statement type, throwing ``StorageError``.
typealias RawStatement = PreparedStatement<StorageError>

/// Where a storage's statements come from, by SQLiteSupport's one policy: the writer's
/// ``StatementCache``, which the manager keeps for the writer connection's life (a statement is
/// prepared once, not once per operation), or GRDB's cache of a reader connection.
struct ContextStatements {
    private enum Source {
        case cache(StatementCache<StorageError>)
        case database(Database)
    }

    /// The connection the statements run on.
    let connection: OpaquePointer
    private let source: Source

    /// Statements from `cache`, on `db`'s connection (the writer's, or a migration's).
    init(cache: StatementCache<StorageError>, on db: Database) throws(StorageError) {
        guard let connection = db.sqliteConnection else { throw .misuse("the writer's connection is closed") }
        self.connection = connection
        source = .cache(cache)
    }

    /// Statements from GRDB's cache of `db`'s connection (a pooled reader's).
    init(reading db: Database) throws(StorageError) {
        guard let connection = db.sqliteConnection else { throw .misuse("the reader's connection is closed") }
        self.connection = connection
        source = .database(db)
    }

    /// The statement for `sql`, reset and without bindings.
    func statement(_ sql: String) throws(StorageError) -> RawStatement {
        switch source {
        case .cache(let cache): return try cache.statement(sql, on: connection)
        case .database(let db): return try RawStatement(cached: sql, in: db)
        }
    }
}
