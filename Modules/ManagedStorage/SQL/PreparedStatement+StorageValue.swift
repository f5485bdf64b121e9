import Foundation
import GRDBSQLite
import SQLiteSupport

/// ManagedStorage's values in and out of SQLiteSupport's statement.
extension PreparedStatement where Failure == StorageError {
    /// Binds `value` to the 1-based parameter `index`.
    @inline(__always)
    func bind(_ value: StorageValue, at index: Int32) {
        switch value {
        case .null: bindNull(at: index)
        case .integer(let v): bind(v, at: index)
        case .real(let v): bind(v, at: index)
        case .text(let v): bind(v, at: index)
        case .blob(let v): bind(v, at: index)
        }
    }

    /// Binds `values` to the parameters from 1.
    func bind(_ values: [StorageValue]) {
        for (offset, value) in values.enumerated() { bind(value, at: Int32(offset + 1)) }
    }

    /// Column `index` (0-based) of the current row.
    @inline(__always)
    func value(at index: Int32) -> StorageValue {
        switch columnType(at: index) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(int64(at: index))
        case SQLITE_FLOAT: return .real(double(at: index))
        case SQLITE_TEXT: return .text(text(at: index) ?? "")
        default: return .blob(data(at: index))
        }
    }
}
