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

        /// Why the store cannot be opened, for the store's "cannot open" error: `damage` is what
        /// SQLite found.
        package func cause(damage: String) -> String {
            switch self {
            case .inUse: "\(damage); it is damaged, but other processes have it open, so it was not moved aside"
            case .cannotMove(let reason): "the store is damaged and could not be moved aside: \(reason)"
            }
        }
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
