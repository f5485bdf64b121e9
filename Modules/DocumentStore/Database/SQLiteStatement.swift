import Foundation
import GRDB
import GRDBSQLite

/// A prepared statement stepped with SQLite's C API, for the per-document paths (a save, a load by
/// identifier): GRDB owns the connections and transactions, and these bind and read directly.
///
/// It borrows a statement from GRDB's per-connection cache (`Database.cachedStatement(sql:)`), so the
/// statement is prepared once per connection; every use ends with ``reset()``.
struct SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    let connection: OpaquePointer
    /// Keeps an uncached statement alive.
    private let owner: Statement?

    /// The cached statement for `sql` on `db`, reset and with no bindings.
    init(_ sql: String, on db: Database) throws(DocumentStoreError) {
        do {
            let statement = try db.cachedStatement(sql: sql)
            handle = statement.sqliteStatement
        } catch {
            throw DocumentDatabase.storeError(error, file: nil)
        }
        self.sql = sql
        connection = db.sqliteConnection!
        owner = nil
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// A statement someone else prepared and keeps (``WriterStatements``); reset here.
    init(prepared handle: OpaquePointer, sql: String, connection: OpaquePointer) {
        self.handle = handle
        self.sql = sql
        self.connection = connection
        owner = nil
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// A statement prepared now, outside the cache: for `EXPLAIN`, whose program does not check the
    /// schema, so a cached one would keep describing the plan from before a new index.
    init(uncached sql: String, on db: Database) throws(DocumentStoreError) {
        do {
            let statement = try db.makeStatement(sql: sql)
            handle = statement.sqliteStatement
            owner = statement
        } catch {
            throw DocumentDatabase.storeError(error, file: nil)
        }
        self.sql = sql
        connection = db.sqliteConnection!
    }

    static func error(_ connection: OpaquePointer, code: Int32, sql: String?) -> DocumentStoreError {
        let extended = sqlite3_extended_errcode(connection)
        return .sqlite(code: extended != 0 ? extended : code, message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }

    func bind(_ text: String, at index: Int32) {
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

    func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, value) }

    func bindNull(at index: Int32) { sqlite3_bind_null(handle, index) }

    /// Binds a JSON value as SQLite's JSON functions return it: booleans as 0/1, containers as their text.
    func bindJSON(_ value: JSON, at index: Int32) {
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .bool(let v): sqlite3_bind_int64(handle, index, v ? 1 : 0)
        case .integer(let v): sqlite3_bind_int64(handle, index, v)
        case .double(let v): sqlite3_bind_double(handle, index, v)
        case .string(let v): bind(v, at: index)
        case .array, .object: bind(value.canonicalText, at: index)
        }
    }

    /// Steps once: `true` for a row, `false` when done.
    func step() throws(DocumentStoreError) -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        let error = Self.error(connection, code: code, sql: sql)
        sqlite3_reset(handle)
        throw error
    }

    /// Runs a statement to its end and resets it.
    func run() throws(DocumentStoreError) {
        defer { reset() }
        while try step() {}
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func text(at column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// Whether the current row's text column equals `text`, without making a `String`.
    func textEquals(at column: Int32, _ text: [UInt8]) -> Bool {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count == text.count else { return false }
        guard count > 0, let bytes = sqlite3_column_text(handle, column) else { return count == 0 }
        return memcmp(bytes, text, count) == 0
    }
}

/// SQLite's `SQLITE_TRANSIENT`: copy the bound bytes now.
let SQLITE_TRANSIENT_VALUE = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
