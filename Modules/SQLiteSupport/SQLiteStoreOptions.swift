import Foundation
import GRDB

/// The options both SQLite stores take, from their public configurations (ManagedStorage's
/// `StorageConfiguration`, DocumentStore's `PersistenceConfiguration`), and the one way they open a
/// store file with them (``openPool(path:label:foreignKeys:)``).
package struct SQLiteStoreOptions: Sendable {
    /// How much a commit waits for the disk.
    package enum Durability: Sendable {
        /// `synchronous = FULL`: a commit survives a power loss.
        case full
        /// `synchronous = NORMAL`: a commit survives a killed process; a power loss may lose the last ones.
        case normal
    }

    package var durability: Durability
    /// How long a write waits for another connection's lock.
    package var busyTimeout: Duration
    /// Whether opening runs `PRAGMA quick_check` (a damaged file is then found at open).
    package var checksIntegrityAtOpen: Bool
    /// The size the write-ahead log is kept near (``WriteAheadLog``).
    package var walSizeLimit: Int
    /// How often other processes' commits are looked for while something listens (``DataVersionPoller``).
    package var pollInterval: Duration

    package init(durability: Durability, busyTimeout: Duration, checksIntegrityAtOpen: Bool, walSizeLimit: Int,
                 pollInterval: Duration) {
        self.durability = durability
        self.busyTimeout = busyTimeout
        self.checksIntegrityAtOpen = checksIntegrityAtOpen
        self.walSizeLimit = walSizeLimit
        self.pollInterval = pollInterval
    }

    /// GRDB's configuration for a connection of the store: its label, the busy timeout, foreign keys.
    package func configuration(label: String, foreignKeys: Bool) -> Configuration {
        var config = Configuration()
        config.label = label
        config.busyMode = .timeout(TimeInterval(busyTimeout.components.seconds)
                                   + TimeInterval(busyTimeout.components.attoseconds) / 1e18)
        config.foreignKeysEnabled = foreignKeys
        return config
    }

    /// Opens the pool (WAL) on `path`, sets the writer's durability and log limit, and checks the
    /// file when ``checksIntegrityAtOpen``: a damaged file is a ``SQLiteFailure`` of kind `.corrupt`
    /// (which ``StoreRecovery`` moves aside), other failures GRDB's `DatabaseError`. The pool is
    /// closed again when anything after opening it fails.
    ///
    /// Opening waits out other connections like any write does, up to ``busyTimeout``: switching a
    /// new file to WAL (`PRAGMA journal_mode = WAL`) needs a lock SQLite takes without calling the busy
    /// handler, so when several processes create one store at the same moment all but one can get
    /// `SQLITE_BUSY` at once; the open is then retried (``retryingWhileBusy(_:)``).
    package func openPool(path: String, label: String, foreignKeys: Bool) throws -> DatabasePool {
        try retryingWhileBusy {
            let pool = try DatabasePool(path: path, configuration: configuration(label: label, foreignKeys: foreignKeys))
            do {
                try pool.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
                    try WriteAheadLog.limit(db, bytes: walSizeLimit)
                    if checksIntegrityAtOpen {
                        let result = try String.fetchAll(db, sql: "PRAGMA quick_check(5)")
                        if result != ["ok"] {
                            throw SQLiteFailure(code: 11 /* SQLITE_CORRUPT */, message: "integrity check failed: \(result.joined(separator: "; "))",
                                                sql: "PRAGMA quick_check", file: path)
                        }
                    }
                }
            } catch {
                try? pool.close()
                throw error
            }
            return pool
        }
    }

    /// Runs `body` again while it fails with `SQLITE_BUSY` (any extended code), for up to
    /// ``busyTimeout`` in all, pausing 1 to 20 ms between tries; the last failure is thrown. For the
    /// steps of opening a store in which SQLite does not call the busy handler: switching the
    /// journal mode, and recovering a log another process left (`SQLITE_BUSY_RECOVERY`).
    package func retryingWhileBusy<R>(_ body: () throws -> R) throws -> R {
        let deadline = ContinuousClock.now + busyTimeout
        var pause = Duration.milliseconds(1)
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && ContinuousClock.now < deadline {
                let ms = Double(pause.components.attoseconds) / 1e15 + Double(pause.components.seconds) * 1000
                usleep(useconds_t(Double.random(in: ms / 2...ms) * 1000))
                pause = min(pause * 2, .milliseconds(20))
            }
        }
    }
}
