import Foundation
import SQLiteSupport

/// DocumentStore's statement: SQLiteSupport's one statement type, throwing ``DocumentStoreError``.
typealias StoreStatement = PreparedStatement<DocumentStoreError>

/// JSON values bound the way SQLite's JSON functions return them.
extension PreparedStatement where Failure == DocumentStoreError {
    /// Binds a JSON value as SQLite's JSON functions return it: booleans as 0/1, containers as their text.
    func bindJSON(_ value: JSON, at index: Int32) {
        switch value {
        case .null: bindNull(at: index)
        case .bool(let v): bind(Int64(v ? 1 : 0), at: index)
        case .integer(let v): bind(v, at: index)
        case .double(let v): bind(v, at: index)
        case .string(let v): bind(v, at: index)
        case .array, .object: bind(value.canonicalText, at: index)
        }
    }
}
