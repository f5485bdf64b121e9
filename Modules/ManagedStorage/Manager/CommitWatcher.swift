import Foundation
import GRDB
import SQLiteSupport
import Synchronization

/// Notices commits made by other managers of the store file (other processes', other programs', or
/// another ``SQLiteStorageManager`` of the same file in this process) and publishes them as
/// ``StorageChanges`` with ``StorageChanges/fromAnotherProcess`` set: one per commit, with the objects
/// the store's ``ChangeLog`` names, or one whose objects are unknown (live results refetch).
///
/// The shared `DataVersionPoller` watches the file on a connection of its own, which moves on every
/// commit, this process's included; when it moved, the watcher reads, on the writer's connection, in
/// one snapshot: the writer's data version (which moves only for commits that were not its own) and
/// the log entries after the last one it read. The first answer is cheap and frequent, the second
/// exact. Reading on the writer keeps the order with this manager's own commits, which publish there
/// too. Polling starts with the first subscriber to ``SQLiteStorageManager/changes()`` (a results
/// controller is one) and stops when the manager goes away.
///
/// Which objects changed is unknown, and one change says so, when the writer's data version moved but
/// no other manager logged a commit (a program without ManagedStorage wrote the store, or a
/// checkpoint truncated the write-ahead log, which SQLite reports as a change too); when entries
/// after the last one read were trimmed; when the log's last sequence went back (a store restored
/// from a copy); when a writer logged that an unlogged commit came right before its own; or when an
/// entry does not decode.
// @unchecked Sendable: `state` is a `Mutex`; `poller` is set once in `init` and only read after; the rest are `Sendable` constants
final class CommitWatcher: @unchecked Sendable {
    private struct State {
        /// The writer connection's data version when the watcher last read.
        var writerVersion: Int64
        /// The last log sequence read (and published, or skipped as this manager's own).
        var sequence: Int64
    }

    private let writer: any DatabaseWriter
    private let log: ChangeLog
    private let publish: @Sendable (StorageChanges) -> Void
    private var poller: DataVersionPoller!
    private let state: Mutex<State>

    /// Starts from `start`, what the writer saw at open (``ChangeLog/current(_:)``), so every commit by
    /// others from there on is reported, and none before.
    init(path: String, writer: any DatabaseWriter, log: ChangeLog, start: ChangeLog.Look, interval: Duration,
         publish: @escaping @Sendable (StorageChanges) -> Void) {
        self.writer = writer
        self.log = log
        self.publish = publish
        state = Mutex(State(writerVersion: start.dataVersion, sequence: start.sequence))
        poller = DataVersionPoller(path: path, interval: interval, label: "ManagedStorage") { [weak self] in self?.confirm() }
    }

    /// Starts polling (once; later calls do nothing). Never touches the writer, so it may be called
    /// from inside an operation.
    func start() { poller.start() }

    /// Checks now, on the caller's thread (after a poll in progress); for tests.
    func checkNow() { poller.checkNow() }

    /// Somebody committed: reads on the writer's connection who it was and what changed, and publishes
    /// it there. (It waits for a transaction of this process in progress.)
    private func confirm() {
        _ = try? writer.writeWithoutTransaction { db in
            let after = state.withLock { $0.sequence }
            let reading = try log.read(after: after, db)
            let changes = state.withLock { state in
                defer {
                    state.writerVersion = reading.dataVersion
                    state.sequence = reading.last
                }
                return Self.changes(reading, after: after, movedSince: state.writerVersion, token: log.token)
            }
            for change in changes { publish(change) }
        }
    }

    /// What to publish for `reading`: one change per commit of another manager, or one change whose
    /// objects are unknown.
    static func changes(_ reading: ChangeLog.Reading, after sequence: Int64, movedSince version: Int64,
                        token: Int64) -> [StorageChanges] {
        let moved = reading.dataVersion != version
        guard let entries = reading.entries else { return moved ? [.unknownFromAnotherProcess] : [] }
        // The log went back (restored from a copy), or entries were trimmed before they were read.
        if reading.last < sequence || (entries.first.map { $0.sequence > sequence + 1 } ?? (reading.last > sequence)) {
            return [.unknownFromAnotherProcess]
        }
        guard let commits = ChangeLog.commits(entries) else { return [.unknownFromAnotherProcess] }
        let others = commits.filter { $0.writer != token }
        // Somebody committed without logging: with nobody else's entry, or right before an entry
        // (this manager's own included: its writer saw it, the watcher has not).
        if (moved && others.isEmpty) || commits.contains(where: \.followsUnloggedCommit) {
            return [.unknownFromAnotherProcess]
        }
        return others.compactMap { commit in
            var changes = commit.changes
            changes.fromAnotherProcess = true
            return changes.isEmpty ? nil : changes
        }
    }
}
