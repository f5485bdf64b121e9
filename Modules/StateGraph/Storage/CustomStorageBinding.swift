import Foundation

/// How a node keeps its value in a ``Storage`` of the program's own (not ``InMemoryStorage`` or
/// ``UserDefaultsStorage``): every set that changes the node goes to the storage, and the storage's
/// reports of outside changes come back to the node.
// @unchecked Sendable: `storage`, `node`, `writing` and `reloadPending` are only touched under `lock`
@usableFromInline
final class CustomStorageBinding<Value, S: Storage<Value>>: @unchecked Sendable {
    /// Held while a set or a reload changes the storage and the node, so both see one order.
    /// Recursive: a storage may report a change from inside its own setter, on the setting thread.
    private let lock = NSRecursiveLock()
    /// The storage. Guarded by `lock`.
    nonisolated(unsafe) private var storage: S
    /// The node, once made (a report that comes before is kept in `reloadPending`). Guarded by `lock`.
    nonisolated(unsafe) private weak var node: StoredNode<Value, S>?
    /// Whether a set is giving the storage its value on this lock's owner thread. Guarded by `lock`.
    nonisolated(unsafe) private var writing = false
    /// Whether the storage reported a change that is still to be read: made from inside its setter,
    /// or before the node existed. Guarded by `lock`.
    nonisolated(unsafe) private var reloadPending = false

    /// Takes `storage` and gives it its context (`loaded(context:)`), before the node reads its value.
    init(storage: S) {
        self.storage = storage
        var loading = storage
        loading.loaded(context: StorageContext { [weak self] in self?.storageReported() })
        lock.withLock { self.storage = loading }
    }

    /// The storage's value.
    var value: Value { lock.withLock { storage.value } }

    /// The node exists: a change the storage reported meanwhile reaches it now.
    func attach(to node: StoredNode<Value, S>) {
        let pending = lock.withLock {
            self.node = node
            defer { reloadPending = false }
            return reloadPending
        }
        if pending { reload() }
    }

    /// Sets the storage's value and the node's, then spreads the change. A set that changes nothing
    /// (an equal value, one `shouldNotify` refuses) does not reach the storage either, so the two
    /// never disagree.
    @usableFromInline
    func write(_ newValue: Value, to node: StoredNode<Value, S>) {
        var notifications = GraphNotifications()
        let reportedMeanwhile = lock.withLock { () -> Bool in
            // The node first: it compares (once), and its change is delivered only after the lock.
            guard node.store(newValue, notifying: &notifications) else { return false }
            return giveStorage(newValue)
        }
        notifications.deliver(on: EvaluationThread.current)
        notifications.discard()
        // The storage reported a change from inside its setter (it adjusted the value it was given).
        if reportedMeanwhile { reload() }
    }

    /// Sets the storage's value to what the node already holds (`unsafeModify` changed it in place).
    func writeQuietly(_ value: Value) {
        if lock.withLock({ giveStorage(value) }) { reload() }
    }

    /// Under `lock`: sets the storage's value; returns whether the storage reported a change from
    /// inside its setter (to be read once the lock is released).
    private func giveStorage(_ value: Value) -> Bool {
        writing = true
        storage.value = value
        writing = false
        defer { reloadPending = false }
        return reloadPending
    }

    /// The storage called `notifyStorageUpdated()`: the node takes its value now, or once the set in
    /// progress on this thread (or the node's creation) is done.
    private func storageReported() {
        let now = lock.withLock { () -> Bool in
            if writing || node == nil {
                reloadPending = true
                return false
            }
            return true
        }
        if now { reload() }
    }

    /// The node takes the storage's value and spreads it if it differs.
    private func reload() {
        var notifications = GraphNotifications()
        lock.withLock {
            guard let node else { return }
            _ = node.store(storage.value, notifying: &notifications)
        }
        notifications.deliver(on: EvaluationThread.current)
        notifications.discard()
    }

    deinit {
        storage.unloaded()
    }
}
