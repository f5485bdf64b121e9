import Foundation
import GRDB

/// Keeps a store's `-wal` file near a size limit, for both SQLite stores.
///
/// SQLite's automatic checkpoints copy the log into the store every 1000 pages, but the log only
/// starts over when no reader is using it at that moment; readers that never pause (another process
/// reading in a loop) can keep it growing. `journal_size_limit` truncates it after a checkpoint that
/// reset it; past the limit, ``bound(path:limit:writer:)`` runs a `TRUNCATE` checkpoint, which waits
/// (within the busy timeout) for the readers of older snapshots to finish, copies everything, and
/// truncates the log to zero bytes.
package enum WriteAheadLog {
    /// Sets the connection's `journal_size_limit` (run it on the writer after opening).
    package static func limit(_ db: Database, bytes: Int) throws {
        try db.execute(sql: "PRAGMA journal_size_limit = \(bytes)")
    }

    /// After a commit: a `TRUNCATE` checkpoint when the log of the store at `path` passed `limit` bytes.
    /// A busy reader makes it give up (the next commit tries again): not an error anyone can act on.
    package static func bound(path: String, limit: Int, writer: any DatabaseWriter) {
        var info = stat()
        guard stat(path + "-wal", &info) == 0, Int(info.st_size) > limit else { return }
        _ = try? writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
    }
}
