import FileStorageKit
import Foundation
import PlistCodec
import Synchronization

/// Something kept in a suite that wants to hear when its key changes.
protocol SuiteListener: AnyObject {
    /// The identity of the lock `withListenerLock` takes (its binding's write lock), which orders it
    /// among the locks a reload or a batch's flush takes together.
    var listenerLockID: ObjectIdentifier { get }
    /// Runs `body` holding the listener's write lock.
    func withListenerLock(_ body: () -> Void)
    /// The suite may have changed (this process or another wrote it): takes the key's value from
    /// `snapshot`, the lock held.
    func suiteValueChanged(snapshot: [String: PlistValue])
}

/// One suite file as the graph uses it: a `DefaultsSuite` shared by every node of that file in the
/// process, a write counter, and the watcher that brings other processes' writes to the nodes.
///
/// Entries are shared through a registry of weak references: the nodes keep their entry alive, and
/// when the last node goes, the entry stops watching.
// @unchecked Sendable: `listeners` and `watcher` are only touched under `lock` (and by `deinit`); `suite` is `Sendable` and `writes` atomic
final class SuiteEntry: @unchecked Sendable {
    let suite: DefaultsSuite
    /// How many times a node wrote to the suite (a set that changed nothing on disk still counts).
    let writes = Atomic<Int>(0)
    private let lock = Mutex<Void>(())
    nonisolated(unsafe) private var listeners: [String: [WeakListener]] = [:]
    nonisolated(unsafe) private var watcher: Task<Void, Never>?

    private struct WeakListener {
        weak var listener: (any SuiteListener)?
    }

    private init(suite: DefaultsSuite) {
        self.suite = suite
    }

    deinit {
        watcher?.cancel()
    }

    /// Starts listening to the suite's changes, from this process and others.
    private func startWatching() {
        let changes = suite.changes()
        watcher = Task.detached { [weak self] in
            for await key in changes {
                guard let self else { return }
                self.keyChanged(key)
            }
        }
    }

    /// Registers `listener` for `key` (held weakly).
    func listen(_ listener: any SuiteListener, forKey key: String) {
        lock.withLock { _ in
            listeners[key, default: []].removeAll { $0.listener == nil }
            listeners[key, default: []].append(WeakListener(listener: listener))
        }
    }

    /// A key changed: every node of the suite reloads, in one batch. A batch's flush writes all its
    /// keys in one write, and the change of each is told apart; reloading only the told key would
    /// let an observer of these nodes run with half the batch.
    ///
    /// The nodes take their values from one snapshot of the suite, taken while holding every node's
    /// write lock (in the order a batch's flush takes them): read key by key, a reload could take one
    /// key before a flush and the next after it, half a batch again; and a snapshot taken outside
    /// the locks could be older than what a node of this process has just written.
    private func keyChanged(_ key: String) {
        let targets = lock.withLock { _ in listeners.values.flatMap { $0.compactMap(\.listener) } }
        withGraphBatch {
            withSuiteWriteLocks(targets.map { ($0.listenerLockID, $0.withListenerLock) }) {
                let snapshot = suite.dictionaryRepresentation()
                for target in targets { target.suiteValueChanged(snapshot: snapshot) }
            }
        }
    }

    // MARK: Registry

    private struct WeakEntry: Sendable {
        weak var entry: SuiteEntry?
    }

    private static let registry = Mutex<[String: WeakEntry]>([:])

    /// The entry of the suite `name` in `storage`, shared with every node of the same file.
    static func shared(storage: StorageFolder, suiteName: String) -> SuiteEntry {
        let suite = DefaultsSuite(suiteName: suiteName, storage: storage)
        // A memory folder's suites are its own, whatever their path says.
        let path = storage.isMemory ? "\(storage):\(suite.url.path)" : suite.url.path
        let (entry, isNew) = registry.withLock { table -> (SuiteEntry, Bool) in
            if let existing = table[path]?.entry { return (existing, false) }
            let created = SuiteEntry(suite: suite)
            table = table.filter { $0.value.entry != nil }
            table[path] = WeakEntry(entry: created)
            return (created, true)
        }
        if isNew { entry.startWatching() }
        return entry
    }
}
