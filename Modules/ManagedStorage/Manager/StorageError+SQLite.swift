import Foundation
import FileStorageKit
import GRDB
import SQLiteSupport

/// ManagedStorage's errors for what GRDB, SQLite and SQLiteSupport report.
extension StorageError: SQLiteStoreFailure {
    /// The error of a failed statement, classified (a full disk is ``StorageError/diskFull(file:)``).
    package init(statementFailure failure: SQLiteFailure, file: String) {
        self.init(failure, file: file)
    }

    /// The storage error for a classified SQLite failure, one case per kind (SQLiteSupport's policy):
    /// busy is ``busyTimeout(file:seconds:)`` (0 s when the timeout is not known: a lock SQLite calls
    /// no busy handler for), a damaged file ``corruptDatabase(file:cause:)`` (which the opener moves
    /// aside), a full disk and a read-only file or folder their own cases, at open as later; an I/O
    /// error or anything else is ``cannotOpen(file:cause:)`` at open and ``sqlite(code:message:sql:)`` later.
    init(_ failure: SQLiteFailure, file: String?, busyTimeout: Duration? = nil, openFailure: Bool = false) {
        let file = file ?? "the store"
        switch failure.kind {
        case .busy:
            let timeout = busyTimeout ?? .zero
            self = .busyTimeout(file: file, seconds: Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        case .corrupt, .notADatabase:
            self = .corruptDatabase(file: file, cause: failure.cause)
        case .diskFull:
            self = .diskFull(file: file)
        case .readOnly:
            self = .readOnly(file: file)
        case .cannotOpen:
            self = .cannotOpen(file: file, cause: failure.cause)
        case .ioError, .constraint, .other:
            self = openFailure ? .cannotOpen(file: file, cause: failure.cause)
                               : .sqlite(code: failure.code, message: failure.message, sql: failure.sql)
        }
    }

    /// The storage error for any error thrown by GRDB, SQLite or an operation.
    init(_ error: any Error, file: String? = nil, busyTimeout: Duration? = nil, openFailure: Bool = false) {
        if let error = error as? StorageError {
            // A statement's busy failure knows no timeout; the operation that ran it does.
            if case .busyTimeout(let file, 0) = error, let busyTimeout {
                self = .busyTimeout(file: file, seconds: Double(busyTimeout.components.seconds) + Double(busyTimeout.components.attoseconds) / 1e18)
            } else {
                self = error
            }
        } else if let failure = error as? SQLiteFailure {
            self.init(failure, file: file, busyTimeout: busyTimeout, openFailure: openFailure)
        } else if let error = error as? DatabaseError {
            self.init(SQLiteFailure(error, file: file ?? "the store"), file: file, busyTimeout: busyTimeout, openFailure: openFailure)
        } else if let error = error as? FileStorageError {
            self = .cannotOpen(file: file ?? "the store", cause: "\(error)")
        } else {
            self = .operationFailed("\(error)")
        }
    }
}
