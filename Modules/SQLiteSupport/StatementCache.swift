import Foundation
import GRDB
import GRDBSQLite

/// The statements of one connection a store keeps for its hot path (the writer), each prepared once
/// (`SQLITE_PREPARE_PERSISTENT`) and kept for the connection's life: the other half of
/// ``PreparedStatement``'s one policy (pooled readers borrow GRDB's per-connection cache instead).
///
/// A statement is found by its SQL, or faster by a slot: a small integer the store gives each of its
/// fixed statements (a save runs six). Used by one thread at a time (the writer's transactions run one
/// at a time); ``finalize()`` before the connection closes, which the cache also does when it is
/// asked for a statement on another connection.
// @unchecked Sendable: used by one thread at a time: only the writer's transactions, which run one after another, touch it
package final class StatementCache<Failure: SQLiteStoreFailure>: @unchecked Sendable {
    private var connection: OpaquePointer?
    private var bySQL: [String: OpaquePointer] = [:]
    private var bySlot: [(handle: OpaquePointer, sql: String)?] = []

    package init() {}

    deinit { finalize() }

    /// The statement for `sql` on `connection`, reset and without bindings.
    package func statement(_ sql: String, on connection: OpaquePointer) throws(Failure) -> PreparedStatement<Failure> {
        adopt(connection)
        if let handle = bySQL[sql] { return PreparedStatement(prepared: handle, sql: sql, connection: connection) }
        let handle = try Self.prepare(sql, on: connection)
        bySQL[sql] = handle
        return PreparedStatement(prepared: handle, sql: sql, connection: connection)
    }

    /// The statement in `slot` (the store's number for `sql`, from 0) on `connection`, reset and
    /// without bindings; found by position, without hashing its SQL.
    package func statement(slot: Int, sql: @autoclosure () -> String,
                           on connection: OpaquePointer) throws(Failure) -> PreparedStatement<Failure> {
        adopt(connection)
        if slot < bySlot.count, let kept = bySlot[slot] {
            return PreparedStatement(prepared: kept.handle, sql: kept.sql, connection: connection)
        }
        let sql = sql()
        let handle = try Self.prepare(sql, on: connection)
        if slot >= bySlot.count { bySlot.append(contentsOf: repeatElement(nil, count: slot + 1 - bySlot.count)) }
        bySlot[slot] = (handle, sql)
        return PreparedStatement(prepared: handle, sql: sql, connection: connection)
    }

    /// Finalizes every statement (before the connection closes or is handed back).
    package func finalize() {
        for handle in bySQL.values { sqlite3_finalize(handle) }
        for case let kept? in bySlot { sqlite3_finalize(kept.handle) }
        bySQL.removeAll()
        bySlot.removeAll()
        connection = nil
    }

    private func adopt(_ connection: OpaquePointer) {
        if self.connection != connection {
            finalize()
            self.connection = connection
        }
    }

    private static func prepare(_ sql: String, on connection: OpaquePointer) throws(Failure) -> OpaquePointer {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw PreparedStatement<Failure>.failure(on: connection, code: code, sql: sql)
        }
        return handle
    }
}
