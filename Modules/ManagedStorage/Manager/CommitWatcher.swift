import Foundation
import GRDB
import SQLiteSupport
import Synchronization

/// Notices commits made by other processes (or other programs) and publishes them as
/// ``StorageChanges`` with ``StorageChanges/fromAnotherProcess`` set: which rows changed is unknown,
/// so live results refetch and compare.
///
/// The shared `DataVersionPoller` watches the file on a connection of its own, which moves on every
/// commit, this process's included; when it moved, the watcher asks the writer's connection, whose
/// data version moves only for commits that were not its own. The first answer is cheap and
/// frequent, the second exact. Polling starts with the first subscriber to
/// ``SQLiteStorageManager/changes()`` (a results controller is one) and stops when the manager goes away.
final class CommitWatcher: @unchecked Sendable {
    private let writer: any DatabaseWriter
    private let publish: @Sendable (StorageChanges) -> Void
    private var poller: DataVersionPoller!
    private let writerVersion: Mutex<Int64>

    /// Reads the writer's data version now, so every commit by others from here on is reported (call
    /// it where no operation can be running, as the manager's initializer does).
    init(path: String, writer: any DatabaseWriter, interval: Duration, publish: @escaping @Sendable (StorageChanges) -> Void) {
        self.writer = writer
        self.publish = publish
        writerVersion = Mutex(Self.dataVersion(of: writer) ?? -1)
        poller = DataVersionPoller(path: path, interval: interval, label: "ManagedStorage") { [weak self] in self?.confirm() }
    }

    /// Starts polling (once; later calls do nothing). Never touches the writer, so it may be called
    /// from inside an operation.
    func start() { poller.start() }

    /// Checks now, on the caller's thread (after a poll in progress); for tests.
    func checkNow() { poller.checkNow() }

    /// Somebody committed: asks the writer's connection whether it was somebody else. (It waits for a
    /// transaction of this process in progress.)
    private func confirm() {
        guard let current = Self.dataVersion(of: writer) else { return }
        let moved = writerVersion.withLock { version in
            defer { version = current }
            return current != version
        }
        if moved { publish(.fromAnotherProcess) }
    }

    /// The writer connection's data version (it waits for an operation in progress).
    private static func dataVersion(of writer: any DatabaseWriter) -> Int64? {
        try? writer.writeWithoutTransaction { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") }
    }
}
