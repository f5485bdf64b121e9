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

    /// The storage error for a classified SQLite failure: at open, what prevents opening is
    /// ``cannotOpen(file:cause:)``; later, a full disk and a read-only file have cases of their own;
    /// a damaged file stays ``sqlite(code:message:sql:)`` (the opener recognizes it by its code).
    init(_ failure: SQLiteFailure, file: String?, busyTimeout: Duration? = nil, openFailure: Bool = false) {
        let file = file ?? "the store"
        switch failure.kind {
        case .busy:
            if let busyTimeout {
                self = .busyTimeout(file: file, seconds: Double(busyTimeout.components.seconds)
                                   + Double(busyTimeout.components.attoseconds) / 1e18)
            } else {
                self = .sqlite(code: failure.code, message: failure.message, sql: failure.sql)
            }
        case .cannotOpen, .readOnly, .diskFull, .ioError:
            if openFailure {
                self = .cannotOpen(file: file, cause: "\(failure.message) (SQLite code \(failure.code))")
            } else if failure.kind == .diskFull {
                self = .diskFull(file: file)
            } else if failure.kind == .readOnly {
                self = .readOnly(file: file)
            } else {
                self = .sqlite(code: failure.code, message: failure.message, sql: failure.sql)
            }
        case .corrupt, .other:
            self = .sqlite(code: failure.code, message: failure.message, sql: failure.sql)
        }
    }

    /// The storage error for any error thrown by GRDB, SQLite or an operation.
    init(_ error: any Error, file: String? = nil, busyTimeout: Duration? = nil, openFailure: Bool = false) {
        if let error = error as? StorageError {
            self = error
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
