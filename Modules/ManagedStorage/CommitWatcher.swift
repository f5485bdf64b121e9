import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// Notices commits made by other processes (or other programs) and publishes them as
/// ``StorageChanges`` with ``StorageChanges/fromAnotherProcess`` set: which rows changed is unknown,
/// so live results refetch and compare.
///
/// SQLite has no cross-process notification. `PRAGMA data_version` on a connection changes whenever
/// *another* connection committed, and costs a few microseconds. The watcher polls it on a
/// connection of its own, which moves on every commit, this process's included; when it moved, it
/// asks the writer's connection, whose data version moves only for commits that were not its own.
/// The first answer is cheap and frequent, the second exact. The timer starts with the first
/// subscriber to ``SQLiteStorageManager/changes()`` (a results controller is one) and stops when the
/// manager goes away.
final class CommitWatcher: @unchecked Sendable {
    private let path: String
    private let writer: any DatabaseWriter
    private let interval: Duration
    private let publish: @Sendable (StorageChanges) -> Void
    private let queue = DispatchQueue(label: "ManagedStorage.commit-watcher")
    private let started = Atomic<Bool>(false)
    // Guarded by `queue`.
    private var connection: OpaquePointer?
    private var watcherVersion: Int64 = -1
    private var writerVersion: Int64 = -1
    private var timer: DispatchSourceTimer?

    /// Reads the writer's data version now, so every commit by others from here on is reported (call
    /// it where no operation can be running, as the manager's initializer does).
    init(path: String, writer: any DatabaseWriter, interval: Duration, publish: @escaping @Sendable (StorageChanges) -> Void) {
        self.path = path
        self.writer = writer
        self.interval = interval
        self.publish = publish
        writerVersion = writerDataVersion() ?? -1
    }

    deinit {
        timer?.cancel()
        if let connection { sqlite3_close_v2(connection) }
    }

    /// Starts polling (once; later calls do nothing). Never touches the writer, so it may be called
    /// from inside an operation.
    func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.sync {
            var handle: OpaquePointer?
            guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
                  let handle else {
                if let handle { sqlite3_close_v2(handle) }
                return
            }
            sqlite3_busy_timeout(handle, 1000)
            connection = handle
            watcherVersion = Self.dataVersion(handle) ?? -1
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let nanoseconds = max(1_000_000, Int(interval.components.seconds) * 1_000_000_000
                                  + Int(interval.components.attoseconds / 1_000_000_000))
            timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
                           leeway: .nanoseconds(nanoseconds / 10))
            timer.setEventHandler { [weak self] in self?.poll() }
            timer.resume()
            self.timer = timer
        }
    }

    /// Checks now, on the caller's thread (after a poll in progress); for tests.
    func checkNow() {
        guard started.load(ordering: .acquiring) else { return }
        queue.sync { poll() }
    }

    private func poll() {
        guard let connection, let version = Self.dataVersion(connection), version != watcherVersion else { return }
        watcherVersion = version
        // Somebody committed: ask the writer's connection whether it was somebody else. (It waits for
        // a transaction of this process in progress.)
        guard let current = writerDataVersion(), current != writerVersion else { return }
        writerVersion = current
        publish(.fromAnotherProcess)
    }

    /// The writer connection's data version (it waits for an operation in progress).
    private func writerDataVersion() -> Int64? {
        try? writer.writeWithoutTransaction { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") }
    }

    private static func dataVersion(_ connection: OpaquePointer) -> Int64? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection, "PRAGMA data_version", -1, &statement, nil) == SQLITE_OK, let statement else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return sqlite3_column_int64(statement, 0)
    }
}
