import Foundation
import GRDB
import GRDBSQLite

/// One classification of SQLite's failures for both SQLite stores, which map it to their own public
/// errors (ManagedStorage's `StorageError`, DocumentStore's `DocumentStoreError`) with a plain switch
/// over ``Kind``: one kind is one public case, at open and later alike (a busy lock is the store's busy
/// timeout, a read-only file its read-only case, a damaged file its corrupt-database case), except that
/// an I/O error or anything else met while opening is the store's "cannot open".
///
/// SQLite reports a full disk only for `ENOSPC`, as `SQLITE_FULL`; a write refused for a file size
/// limit (`EFBIG`) or a quota (`EDQUOT`) is an `SQLITE_IOERR`, and the OS error is not always kept, so
/// the classifier also looks at the disk and at the process's `RLIMIT_FSIZE`.
package struct SQLiteFailure: Error, Sendable {
    /// What went wrong, as a program would act on it.
    package enum Kind: Sendable, Equatable {
        /// Another connection held the lock past the busy timeout.
        case busy
        /// The disk (or the process's file size limit) refused a write.
        case diskFull
        /// The file or its folder cannot be written.
        case readOnly
        /// The file is damaged (`SQLITE_CORRUPT`, or a failed `quick_check`).
        case corrupt
        /// The file is not a database (`SQLITE_NOTADB`).
        case notADatabase
        /// The file cannot be opened (missing folder, permissions).
        case cannotOpen
        /// An I/O error other than a full disk.
        case ioError
        /// A constraint (`UNIQUE`, `NOT NULL`, a foreign key, a `CHECK`) refused a write.
        case constraint
        /// Anything else: a syntax error, misuse.
        case other
    }

    package let kind: Kind
    /// The extended result code.
    package let code: Int32
    /// SQLite's message, with the OS error when there was one.
    package let message: String
    package let sql: String?

    /// SQLite's message with its result code, as a store's error names the cause.
    package var cause: String { "\(message) (SQLite code \(code))" }

    /// Classifies `code` (primary or extended) for the store file `file`.
    package init(code: Int32, message: String, sql: String?, file: String, systemErrno: Int32 = 0) {
        self.code = code
        self.sql = sql
        self.message = systemErrno == 0 ? message
            : "\(message) (OS error \(systemErrno): \(String(cString: strerror(systemErrno))))"
        switch code & 0xFF {
        case SQLITE_CORRUPT: kind = .corrupt
        case SQLITE_NOTADB: kind = .notADatabase
        case SQLITE_CONSTRAINT: kind = .constraint
        case SQLITE_FULL: kind = .diskFull
        case SQLITE_READONLY: kind = .readOnly
        case SQLITE_BUSY: kind = .busy
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH: kind = .cannotOpen
        case SQLITE_IOERR where [ENOSPC, EFBIG, EDQUOT].contains(systemErrno)
            || (code == 778 /* SQLITE_IOERR_WRITE */ && Self.outOfSpace(file)):
            kind = .diskFull
        case SQLITE_IOERR: kind = .ioError
        default: kind = .other
        }
    }

    /// Classifies a GRDB error.
    package init(_ error: DatabaseError, file: String, systemErrno: Int32 = 0) {
        self.init(code: error.extendedResultCode.rawValue, message: error.message ?? "SQLite error", sql: error.sql,
                  file: file, systemErrno: systemErrno)
    }

    /// Whether the disk holding `file` is (nearly) full, or the store's files reached this process's
    /// file size limit (`RLIMIT_FSIZE`).
    package static func outOfSpace(_ file: String) -> Bool {
        var disk = statvfs()
        let folder = (file as NSString).deletingLastPathComponent
        if statvfs(folder, &disk) == 0, UInt64(disk.f_bavail) * UInt64(disk.f_frsize) < 1 << 20 { return true }
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return false }
        for suffix in ["", "-wal", "-journal"] {
            var info = stat()
            if stat(file + suffix, &info) == 0, UInt64(info.st_size) + (64 << 10) >= UInt64(limit.rlim_cur) { return true }
        }
        return false
    }
}
