import Foundation
import FileStorageKit
import GRDBSQLite

/// The one corrupt-file policy of both SQLite stores: a store that SQLite finds damaged at open
/// (`SQLITE_CORRUPT`, `SQLITE_NOTADB`, or a failed `quick_check`) is moved aside with its `-wal` and
/// `-shm` files to `<name>.sqlite.corrupt-<time>`, under the ``StoreLock`` taken exclusively, and a
/// fresh store is opened; the store reports what it moved. A store another process has open is never
/// moved (that is an error instead), and neither is a file SQLite reads fine but the store does not
/// recognize (another program's database).
package enum StoreRecovery {
    /// Why a damaged store was not moved aside.
    package enum Failure: Error {
        /// Other processes kept the store open (its lock shared) until the deadline.
        case inUse
        /// The rename failed.
        case cannotMove(String)
        /// Under the lock, the file was no longer damaged: another process moved it aside first (and
        /// may be writing to the new store already). Open it again; nothing was moved.
        case alreadyRecovered

        /// Why the store cannot be opened, for the store's "cannot open" error: `damage` is what
        /// SQLite found.
        package func cause(damage: String) -> String {
            switch self {
            case .inUse: "\(damage); it is damaged, but other processes have it open, so it was not moved aside"
            case .cannotMove(let reason): "the store is damaged and could not be moved aside: \(reason)"
            case .alreadyRecovered: "\(damage); another process moved it aside meanwhile"
            }
        }
    }

    /// Moves the damaged store `file` aside under `lock` taken exclusively; returns its new name.
    ///
    /// The damage is checked again under the lock: two processes that found the file damaged at the
    /// same moment take the lock one after the other, and the second finds the first one's new,
    /// healthy store, which it must not move (``Failure/alreadyRecovered``: open it again). It is also
    /// checked while waiting for the lock, every quarter second: the first process keeps its new store
    /// open (the lock shared), so without the check the second would wait out `timeout` to learn that.
    package static func moveAside(_ file: URL, lock: StoreLock, timeout: Duration) throws(Failure) -> URL {
        let moved: URL??
        do {
            moved = try lock.withExclusive(timeout: timeout, stopWaiting: { !isDamaged(file.path) }) { () throws -> URL? in
                guard isDamaged(file.path) else { return nil }
                return try DurableFile.moveAside(file, companions: ["-wal", "-shm"])
            }
        } catch {
            throw .cannotMove("\(error)")
        }
        // Other processes kept the store open: if it is healthy now, one of them recovered it.
        guard let moved else { throw isDamaged(file.path) ? .inUse : .alreadyRecovered }
        guard let moved else { throw .alreadyRecovered }
        return moved
    }

    /// Whether SQLite finds the database at `path` damaged: it does not open as a database, or
    /// `PRAGMA quick_check` finds something wrong. A missing file is not damaged.
    package static func isDamaged(_ path: String) -> Bool {
        guard FileManager.default.fileExists(atPath: path) else { return false }
        var handle: OpaquePointer?
        defer { if let handle { sqlite3_close_v2(handle) } }
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let handle else { return true }
        sqlite3_busy_timeout(handle, 5000)
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, "PRAGMA quick_check(1)", -1, &statement, nil) == SQLITE_OK, let statement else {
            return true
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return true }
        return String(cString: text) != "ok"
    }
}
