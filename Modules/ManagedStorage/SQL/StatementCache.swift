import Foundation
import GRDB
import GRDBSQLite
import SQLiteSupport

/// The prepared statements of one connection, by SQL.
final class StatementCache {
    let connection: OpaquePointer
    private var statements: [String: RawStatement] = [:]

    init(connection: OpaquePointer) { self.connection = connection }

    func statement(_ sql: String) throws(StorageError) -> RawStatement {
        if let statement = statements[sql] {
            statement.reset()
            return statement
        }
        let statement = try RawStatement(sql, on: connection)
        statements[sql] = statement
        return statement
    }

    /// Finalizes every statement (before the connection is handed back).
    func clear() { statements.removeAll() }
}
