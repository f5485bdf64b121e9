import Foundation
import FileStorageKit

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
    }

    /// Moves the damaged store `file` aside under `lock` taken exclusively; returns its new name.
    package static func moveAside(_ file: URL, lock: StoreLock, timeout: Duration) throws(Failure) -> URL {
        let moved: URL?
        do {
            moved = try lock.withExclusive(timeout: timeout) {
                try DurableFile.moveAside(file, companions: ["-wal", "-shm"])
            }
        } catch {
            throw .cannotMove("\(error)")
        }
        guard let moved else { throw .inUse }
        return moved
    }
}
