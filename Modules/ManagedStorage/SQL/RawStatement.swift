import Foundation
import GRDB
import GRDBSQLite
import SQLiteSupport

/// A prepared statement on one connection, stepped with SQLite's C API.
///
/// GRDB owns the connections, their transactions and their configuration; the hot paths (insert,
/// update, fetch) bind and read values here directly, so a row costs what SQLite costs plus the copy
/// into the object.
final class RawStatement {
    let handle: OpaquePointer
    let sql: String
    let connection: OpaquePointer

    init(_ sql: String, on connection: OpaquePointer) throws(StorageError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw RawStatement.error(connection, code: code, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// The error of a failed statement, classified (a full disk is ``StorageError/diskFull(file:)``).
    static func error(_ connection: OpaquePointer, code: Int32, sql: String?) -> StorageError {
        let extended = sqlite3_extended_errcode(connection)
        let message = String(cString: sqlite3_errmsg(connection))
        let file = sqlite3_db_filename(connection, "main").map { String(cString: $0) } ?? ""
        let failure = SQLiteFailure(code: extended != 0 ? extended : code, message: message, sql: sql,
                                    file: file.isEmpty ? "the store" : file, systemErrno: sqlite3_system_errno(connection))
        return StorageError(failure, file: file.isEmpty ? nil : file)
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `value` to the 1-based parameter `index`.
    func bind(_ value: StorageValue, at index: Int32) {
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .integer(let v): sqlite3_bind_int64(handle, index, v)
        case .real(let v): sqlite3_bind_double(handle, index, v)
        case .text(let v):
            var v = v
            v.withUTF8 { bytes in
                if bytes.isEmpty {
                    // A NULL pointer would bind NULL; an empty string is bound as "".
                    _ = sqlite3_bind_text(handle, index, "", 0, SQLITE_TRANSIENT_VALUE)
                } else {
                    bytes.withMemoryRebound(to: CChar.self) { chars in
                        _ = sqlite3_bind_text(handle, index, chars.baseAddress, Int32(chars.count), SQLITE_TRANSIENT_VALUE)
                    }
                }
            }
        case .blob(let v):
            v.withUnsafeBytes { bytes in
                if bytes.isEmpty {
                    _ = sqlite3_bind_zeroblob(handle, index, 0)
                } else {
                    _ = sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), SQLITE_TRANSIENT_VALUE)
                }
            }
        }
    }

    func bind(_ values: [StorageValue]) {
        for (offset, value) in values.enumerated() { bind(value, at: Int32(offset + 1)) }
    }

    /// Runs a statement that returns no rows.
    func run() throws(StorageError) {
        let code = sqlite3_step(handle)
        defer { sqlite3_reset(handle) }
        guard code == SQLITE_DONE || code == SQLITE_ROW else {
            throw RawStatement.error(connection, code: code, sql: sql)
        }
    }

    /// Steps to the next row: `true` for a row, `false` at the end.
    func step() throws(StorageError) -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        let error = RawStatement.error(connection, code: code, sql: sql)
        sqlite3_reset(handle)
        throw error
    }

    /// Column `index` (0-based) of the current row.
    func value(at index: Int32) -> StorageValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let bytes = sqlite3_column_text(handle, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        default:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let bytes = sqlite3_column_blob(handle, index), count > 0 else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        }
    }

    func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }
}

/// SQLite's `SQLITE_TRANSIENT`: copy the bound bytes now.
let SQLITE_TRANSIENT_VALUE = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// The row id of the last insert on `connection`.
func sqlite3LastInsertRowID(_ connection: OpaquePointer) -> Int64 { sqlite3_last_insert_rowid(connection) }
