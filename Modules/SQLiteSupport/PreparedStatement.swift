import Foundation
import GRDB
import GRDBSQLite

/// A prepared statement stepped with SQLite's C API: the one statement type of both SQLite stores.
///
/// GRDB owns the connections, their transactions and configuration; the stores' hot paths (a save,
/// a fetch, a load by identifier) bind and read values here directly, so a row costs what SQLite
/// costs plus the copy into the store's own values. A failure is classified (``SQLiteFailure``) and
/// thrown as the store's own error, `Failure`.
///
/// Where statements come from is one policy: on a connection a store keeps for its hot path (the
/// writer), a ``StatementCache`` prepares each statement once for the connection's life; on any other
/// connection (pooled readers), ``init(cached:in:)`` borrows GRDB's per-connection cache. Every use
/// starts reset and without bindings.
package struct PreparedStatement<Failure: SQLiteStoreFailure> {
    package let handle: OpaquePointer
    package let sql: String
    package let connection: OpaquePointer
    /// Keeps a GRDB statement prepared outside its cache alive.
    private let owner: Statement?

    /// A statement someone else prepared and keeps (a ``StatementCache``), reset here.
    @usableFromInline
    init(prepared handle: OpaquePointer, sql: String, connection: OpaquePointer) {
        self.handle = handle
        self.sql = sql
        self.connection = connection
        owner = nil
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// The statement for `sql` from GRDB's cache of `db`'s connection, reset and without bindings.
    package init(cached sql: String, in db: Database) throws(Failure) {
        guard let connection = db.sqliteConnection else {
            throw Self.failure(SQLiteFailure(code: SQLITE_MISUSE, message: "the connection is closed", sql: sql, file: "the store"),
                               connection: nil)
        }
        let statement: Statement
        do { statement = try db.cachedStatement(sql: sql) } catch { throw Self.failure(error, connection: connection, sql: sql) }
        self.init(prepared: statement.sqliteStatement, sql: sql, connection: connection)
    }

    /// A statement prepared now, outside every cache: for `EXPLAIN`, whose program does not check the
    /// schema, so a cached one would keep describing the plan from before a new index.
    package init(uncached sql: String, in db: Database) throws(Failure) {
        guard let connection = db.sqliteConnection else {
            throw Self.failure(SQLiteFailure(code: SQLITE_MISUSE, message: "the connection is closed", sql: sql, file: "the store"),
                               connection: nil)
        }
        let statement: Statement
        do { statement = try db.makeStatement(sql: sql) } catch { throw Self.failure(error, connection: connection, sql: sql) }
        handle = statement.sqliteStatement
        self.sql = sql
        self.connection = connection
        owner = statement
    }

    // MARK: Failures

    /// The store's error for the failed call that returned `code` on `connection`, classified.
    package static func failure(on connection: OpaquePointer, code: Int32, sql: String?) -> Failure {
        let extended = sqlite3_extended_errcode(connection)
        let message = String(cString: sqlite3_errmsg(connection))
        let file = Self.file(of: connection)
        return failure(SQLiteFailure(code: extended != 0 ? extended : code, message: message, sql: sql,
                                     file: file ?? "the store", systemErrno: sqlite3_system_errno(connection)),
                       connection: connection)
    }

    private static func failure(_ error: any Error, connection: OpaquePointer, sql: String) -> Failure {
        if let error = error as? Failure { return error }
        let file = Self.file(of: connection) ?? "the store"
        if let error = error as? DatabaseError {
            return failure(SQLiteFailure(error, file: file, systemErrno: sqlite3_system_errno(connection)), connection: connection)
        }
        return failure(SQLiteFailure(code: SQLITE_ERROR, message: "\(error)", sql: sql, file: file), connection: connection)
    }

    private static func failure(_ failure: SQLiteFailure, connection: OpaquePointer?) -> Failure {
        Failure(statementFailure: failure, file: connection.flatMap { Self.file(of: $0) } ?? "the store")
    }

    /// The main database file of `connection`, or `nil` for an in-memory or temporary database.
    private static func file(of connection: OpaquePointer) -> String? {
        guard let name = sqlite3_db_filename(connection, "main") else { return nil }
        let file = String(cString: name)
        return file.isEmpty ? nil : file
    }

    // MARK: Running

    /// Steps once: `true` for a row, `false` when done. A failure resets the statement.
    @inlinable
    package func step() throws(Failure) -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        let failure = Self.failure(on: connection, code: code, sql: sql)
        sqlite3_reset(handle)
        throw failure
    }

    /// Runs the statement to its end and resets it.
    @inlinable
    package func run() throws(Failure) {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Resets the statement and clears its bindings.
    @inlinable
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Binding (1-based parameters)

    @inlinable
    package func bind(_ text: String, at index: Int32) {
        var text = text
        text.withUTF8 { bytes in
            guard !bytes.isEmpty else {
                // A NULL pointer would bind NULL: an empty string is bound as "".
                _ = sqlite3_bind_text(handle, index, "", 0, SQLITE_TRANSIENT_VALUE)
                return
            }
            bytes.withMemoryRebound(to: CChar.self) { chars in
                _ = sqlite3_bind_text(handle, index, chars.baseAddress, Int32(chars.count), SQLITE_TRANSIENT_VALUE)
            }
        }
    }

    /// Binds UTF-8 `bytes` as text without SQLite copying them (`SQLITE_STATIC`), for a hot path that
    /// binds the same bytes to several statements: the caller keeps them valid and unchanged until the
    /// statement has run, then binds the parameter again (``bindNull(at:)``) so that the statement
    /// never holds a pointer past their life.
    @inlinable
    package func bindUnretained(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int32) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            // A NULL pointer would bind NULL: an empty string is bound as "".
            _ = sqlite3_bind_text(handle, index, "", 0, SQLITE_TRANSIENT_VALUE)
            return
        }
        base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
            // No destructor: SQLITE_STATIC.
            _ = sqlite3_bind_text(handle, index, chars, Int32(bytes.count), nil)
        }
    }

    @inlinable
    package func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }

    @inlinable
    package func bind(_ value: Double, at index: Int32) { sqlite3_bind_double(handle, index, value) }

    @inlinable
    package func bind(_ data: Data, at index: Int32) {
        data.withUnsafeBytes { bytes in
            if bytes.isEmpty {
                // A NULL pointer would bind NULL: an empty blob is bound as a zero-length blob.
                _ = sqlite3_bind_zeroblob(handle, index, 0)
            } else {
                _ = sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), SQLITE_TRANSIENT_VALUE)
            }
        }
    }

    @inlinable
    package func bindNull(at index: Int32) { sqlite3_bind_null(handle, index) }

    // MARK: Reading the current row (0-based columns)

    @inlinable
    package func columnType(at column: Int32) -> Int32 { sqlite3_column_type(handle, column) }

    @inlinable
    package func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    @inlinable
    package func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    @inlinable
    package func double(at column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// The column as text, or `nil` when it is `NULL`.
    @inlinable
    package func text(at column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    /// The column as bytes (empty for `NULL` or a zero-length blob).
    @inlinable
    package func data(at column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// Whether the current row's text column equals `text`, without making a `String`.
    @inlinable
    package func textEquals(at column: Int32, _ text: [UInt8]) -> Bool {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count == text.count else { return false }
        guard count > 0, let bytes = sqlite3_column_text(handle, column) else { return count == 0 }
        return memcmp(bytes, text, count) == 0
    }

    /// Whether the current row's text column equals the UTF-8 `bytes`, without making a `String`.
    @inlinable
    package func textEquals(at column: Int32, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count == bytes.count else { return false }
        guard count > 0, let text = sqlite3_column_text(handle, column), let base = bytes.baseAddress else { return count == 0 }
        return memcmp(text, base, count) == 0
    }

    /// The row id of the last insert on this statement's connection.
    @inlinable
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(connection) }
}

/// SQLite's `SQLITE_TRANSIENT`: copy the bound bytes now.
@usableFromInline
let SQLITE_TRANSIENT_VALUE = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
