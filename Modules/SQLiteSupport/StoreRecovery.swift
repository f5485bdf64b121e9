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
        /// A move aside that a killed process left half done could not be finished (`reason`).
        case unfinishedMove(String)

        /// Why the store cannot be opened, for the store's "cannot open" error: `damage` is what
        /// SQLite found.
        package func cause(damage: String) -> String {
            switch self {
            case .inUse: "\(damage); it is damaged, but other processes have it open, so it was not moved aside"
            case .cannotMove(let reason): "the store is damaged and could not be moved aside: \(reason)"
            case .alreadyRecovered: "\(damage); another process moved it aside meanwhile"
            case .unfinishedMove(let reason): "a process was killed while moving the store aside, and the move could not be finished: \(reason)"
            }
        }
    }

    // MARK: Opening

    /// The first step of opening either store: takes the store's ``StoreLock`` shared and finishes a
    /// move aside that a killed process left half done (``finishInterruptedMove(_:lock:timeout:)``).
    /// `nil` when the folder is read-only (no lock can be made; nothing is ever moved there).
    ///
    /// - Parameter cannotOpen: The store's "cannot open" error for `file`, with why.
    package static func lock<Failure: Error>(_ file: URL, timeout: Duration,
                                             cannotOpen: (_ cause: String) -> Failure) throws(Failure) -> StoreLock? {
        let lock: StoreLock?
        do {
            lock = try StoreLock(for: file, timeout: timeout)
        } catch {
            throw cannotOpen("\(error)")
        }
        if let lock {
            do {
                _ = try finishInterruptedMove(file, lock: lock, timeout: timeout)
            } catch {
                throw cannotOpen(error.cause(damage: ""))
            }
        }
        return lock
    }

    /// The one open, move-aside and reopen path of both stores: runs `open`; when it throws the
    /// store's error for a damaged file (`damage` returns SQLite's cause for it, `nil` for any other
    /// error), moves the file aside under `lock` (``moveAside(_:lock:timeout:)``), tells `movedAside`
    /// where it went, and runs `open` again on the fresh file. When another process moved it first
    /// (``Failure/alreadyRecovered``), it opens that one's new store and reports nothing.
    ///
    /// Without a lock (a read-only folder) nothing is moved: the damage is thrown. A store other
    /// processes keep open, or one that cannot be renamed, is `cannotOpen` with why.
    package static func openRecovering<Store, Failure: Error>(
        _ file: URL, lock: StoreLock?, timeout: Duration,
        damage: (Failure) -> String?,
        cannotOpen: (_ cause: String) -> Failure,
        movedAside: (_ movedTo: URL, _ cause: String) -> Void,
        _ open: () throws(Failure) -> Store
    ) throws(Failure) -> Store {
        do {
            return try open()
        } catch {
            guard let cause = damage(error), let lock else { throw error }
            let moved: URL
            do {
                moved = try moveAside(file, lock: lock, timeout: timeout)
            } catch .alreadyRecovered {
                return try open()
            } catch {
                throw cannotOpen(error.cause(damage: cause))
            }
            movedAside(moved, cause)
            return try open()
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
                return try DurableFile.moveAside(file, companions: companions)
            }
        } catch {
            throw .cannotMove("\(error)")
        }
        // Other processes kept the store open: if it is healthy now, one of them recovered it.
        guard let moved else { throw isDamaged(file.path) ? .inUse : .alreadyRecovered }
        guard let moved else { throw .alreadyRecovered }
        return moved
    }

    /// Finishes a move aside (``moveAside(_:lock:timeout:)``, or an incompatible store's) that a killed
    /// process left half done: the store is gone but its `-wal` or `-shm` is still at its name. They
    /// follow the store's moved copy (`DurableFile.finishMoveAside`), under `lock` taken exclusively,
    /// before SQLite opens the store: SQLite deletes a `-wal` it finds without its database, and with
    /// it the commits the copy needs. One `stat` when there is nothing to finish.
    ///
    /// - Returns: Where the companions went (empty when there was nothing to finish).
    package static func finishInterruptedMove(_ file: URL, lock: StoreLock, timeout: Duration) throws(Failure) -> [URL] {
        guard isInterrupted(file) else { return [] }
        let moved: [URL]?
        do {
            moved = try lock.withExclusive(timeout: timeout, stopWaiting: { !isInterrupted(file) }) { () throws -> [URL] in
                // Under the lock no store has the file open, so nobody creates it meanwhile.
                guard isInterrupted(file) else { return [] }
                return try DurableFile.finishMoveAside(of: file, companions: companions)
            }
        } catch {
            throw .unfinishedMove("\(error)")
        }
        guard let moved else {
            // Other processes kept the lock shared: one of them finished it, or it is still to do.
            if isInterrupted(file) { throw .unfinishedMove("other processes kept the store's lock past \(timeout)") }
            return []
        }
        return moved
    }

    /// The files that move with a store.
    static let companions = ["-wal", "-shm"]

    /// Whether a move aside of `file` was left half done: `file` is gone, a companion is not.
    static func isInterrupted(_ file: URL) -> Bool {
        let fileManager = FileManager.default
        return !fileManager.fileExists(atPath: file.path) && companions.contains { fileManager.fileExists(atPath: file.path + $0) }
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
