import Foundation
import GRDBSQLite

/// The peer: the same rows through SQLite's C API with prepared statements, nothing else.
final class RawSQLite {
    let db: OpaquePointer

    /// The orders' table, created by default.
    static let ordersTable = """
        CREATE TABLE IF NOT EXISTS "BenchOrder" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "orderID" INTEGER NOT NULL,
        "status" TEXT NOT NULL, "total" REAL NOT NULL, "dateCreated" REAL NOT NULL, "note" TEXT) STRICT
        """

    /// Opens (or creates) `path` with the settings below and runs `schema` (nothing when `nil`).
    init(path: String, schema: String? = RawSQLite.ordersTable) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let handle else {
            throw BenchError("cannot open \(path)")
        }
        db = handle
        // The same settings as ManagedStorage's default: WAL, synchronous FULL.
        try exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON")
        if let schema { try exec(schema) }
    }

    deinit { sqlite3_close_v2(db) }

    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw BenchError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        return statement
    }

    /// Inserts `rows` in one `BEGIN IMMEDIATE` transaction.
    func insert(_ rows: [BenchRow]) throws {
        try exec("BEGIN IMMEDIATE")
        let statement = try prepare(#"INSERT INTO "BenchOrder" ("orderID", "status", "total", "dateCreated", "note") VALUES (?, ?, ?, ?, ?)"#)
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        for row in rows {
            sqlite3_bind_int64(statement, 1, row.orderID)
            sqlite3_bind_text(statement, 2, row.status, -1, transient)
            sqlite3_bind_double(statement, 3, row.total)
            sqlite3_bind_double(statement, 4, row.dateCreated.timeIntervalSince1970)
            if let note = row.note { sqlite3_bind_text(statement, 5, note, -1, transient) } else { sqlite3_bind_null(statement, 5) }
            guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
            sqlite3_reset(statement)
        }
        try exec("COMMIT")
    }

    /// Reads every row into structs.
    func fetchAll() throws -> [BenchRow] {
        try exec("BEGIN")
        defer { try? exec("COMMIT") }
        let statement = try prepare(#"SELECT "id", "orderID", "status", "total", "dateCreated", "note" FROM "BenchOrder" ORDER BY "id""#)
        defer { sqlite3_finalize(statement) }
        var rows: [BenchRow] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let status = String(cString: sqlite3_column_text(statement, 2))
            let note = sqlite3_column_type(statement, 5) == SQLITE_NULL ? nil : String(cString: sqlite3_column_text(statement, 5))
            rows.append(BenchRow(orderID: sqlite3_column_int64(statement, 1), status: status, total: sqlite3_column_double(statement, 3),
                                 dateCreated: Date(timeIntervalSince1970: sqlite3_column_double(statement, 4)), note: note))
        }
        return rows
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
