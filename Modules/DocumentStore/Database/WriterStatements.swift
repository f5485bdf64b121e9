import Foundation
import GRDB
import GRDBSQLite

/// The statements of the save path, prepared once on the writer connection and found by position
/// instead of by hashing their SQL (the writer connection lives as long as the pool).
///
/// Used only inside write transactions, which GRDB runs one at a time; finalized by the database
/// before its pool closes.
final class WriterStatements: @unchecked Sendable {
    enum Kind: Int, CaseIterable {
        case insertDocument, selectCurrent, updateDocument, prune, insertRevision, insertChange

        var sql: String {
            switch self {
            case .insertDocument:
                "INSERT INTO documents(id, kind, revision, deleted, body) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING"
            case .selectCurrent: "SELECT number, revision, deleted, body, kind FROM documents WHERE id = ?"
            case .updateDocument: "UPDATE documents SET kind = ?, revision = ?, deleted = ?, body = ? WHERE number = ?"
            // Leaves that old go too: a branch past the horizon is superseded (RevisionTree.prune).
            case .prune: "DELETE FROM revisions WHERE document = ? AND generation <= ?"
            case .insertRevision:
                "INSERT OR IGNORE INTO revisions(document, revision, parent, generation, deleted, body) VALUES (?, ?, ?, ?, ?, ?)"
            case .insertChange: "INSERT INTO changes(document, revision, deleted) VALUES (?, ?, ?)"
            }
        }
    }

    private var connection: OpaquePointer?
    private var handles = [OpaquePointer?](repeating: nil, count: Kind.allCases.count)

    /// The statement `kind` on `db`'s connection (the writer's), reset, without bindings.
    func statement(_ kind: Kind, on db: Database) throws(DocumentStoreError) -> SQLiteStatement {
        let current = db.sqliteConnection!
        if connection != current {
            finalize()
            connection = current
        }
        if let handle = handles[kind.rawValue] {
            return SQLiteStatement(prepared: handle, sql: kind.sql, connection: current)
        }
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(current, kind.sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else { throw SQLiteStatement.error(current, code: code, sql: kind.sql) }
        handles[kind.rawValue] = handle
        return SQLiteStatement(prepared: handle, sql: kind.sql, connection: current)
    }

    func finalize() {
        for index in handles.indices {
            if let handle = handles[index] { sqlite3_finalize(handle) }
            handles[index] = nil
        }
    }
}
