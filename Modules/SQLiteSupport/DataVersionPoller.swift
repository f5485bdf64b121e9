import Foundation
import GRDBSQLite
import Synchronization

/// Notices commits made by other connections to one SQLite file, for the stores' live results.
///
/// SQLite has no cross-process notification. `PRAGMA data_version` on a connection changes whenever
/// *another* connection committed, and costs a few microseconds; the poller reads it on a connection
/// of its own, every `interval` while started, and calls `onChange` when it moved. Its connection is
/// its own, so every commit moves it, the store's own writer's included: a store that must tell its
/// own commits apart asks its writer connection too (ManagedStorage's `CommitWatcher` does).
///
/// ``start()`` reads the baseline before it returns, so a commit made after it is always seen (a
/// baseline read later, on the timer's thread, missed commits made meanwhile). ``checkNow()`` polls on
/// the caller's thread, so a test needs no sleep to see another process's commit.
// @unchecked Sendable: `connection`, `version` and `timer` are only touched on `queue`; the rest are constants and `onChange` is `@Sendable`
package final class DataVersionPoller: @unchecked Sendable {
    private let path: String
    private let interval: Duration
    private let onChange: @Sendable () -> Void
    private let queue: DispatchQueue
    // Guarded by `queue`.
    private var connection: OpaquePointer?
    private var version: Int64 = -1
    private var timer: DispatchSourceTimer?

    /// A poller of the database file at `path`; it does nothing until ``start()``.
    package init(path: String, interval: Duration, label: String, onChange: @escaping @Sendable () -> Void) {
        self.path = path
        self.interval = interval
        self.onChange = onChange
        queue = DispatchQueue(label: "\(label).data-version")
    }

    deinit {
        timer?.cancel()
        if let connection { sqlite3_close_v2(connection) }
    }

    /// Opens the polling connection, reads the baseline, and starts the timer; `false` when the file
    /// cannot be opened (nothing is polled then). A started poller stays started.
    @discardableResult
    package func start() -> Bool {
        queue.sync {
            if connection != nil { return true }
            var handle: OpaquePointer?
            guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
                  let handle else {
                if let handle { sqlite3_close_v2(handle) }
                return false
            }
            sqlite3_busy_timeout(handle, 1000)
            connection = handle
            version = Self.dataVersion(handle) ?? -1
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let nanoseconds = max(1_000_000, Int(interval.components.seconds) * 1_000_000_000
                                  + Int(interval.components.attoseconds / 1_000_000_000))
            timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
                           leeway: .nanoseconds(nanoseconds / 10))
            timer.setEventHandler { [weak self] in self?.poll() }
            timer.resume()
            self.timer = timer
            return true
        }
    }

    /// Stops the timer and closes the connection; ``start()`` may start it again (with a new baseline).
    package func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
            if let connection { sqlite3_close_v2(connection) }
            connection = nil
        }
    }

    /// Whether the poller is started.
    package var isStarted: Bool { queue.sync { connection != nil } }

    /// Polls now, on the caller's thread (after a poll in progress); nothing when not started.
    package func checkNow() {
        queue.sync { poll() }
    }

    private func poll() {
        guard let connection, let now = Self.dataVersion(connection), now != version else { return }
        version = now
        onChange()
    }

    /// `PRAGMA data_version` on `connection`.
    package static func dataVersion(_ connection: OpaquePointer) -> Int64? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection, "PRAGMA data_version", -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return sqlite3_column_int64(statement, 0)
    }
}
