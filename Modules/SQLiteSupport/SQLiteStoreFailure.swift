import Foundation

/// A store's public error, made from a classified SQLite failure: what ``PreparedStatement`` throws,
/// so each store's hot paths report their own error type without wrapping every call.
package protocol SQLiteStoreFailure: Error {
    /// The store's error for `failure`, which happened on the store file `file`.
    init(statementFailure failure: SQLiteFailure, file: String)
}
