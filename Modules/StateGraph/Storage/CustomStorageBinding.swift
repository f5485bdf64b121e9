import Synchronization

/// How a node keeps its value in a ``Storage`` of the program's own (not ``InMemoryStorage`` or
/// ``UserDefaultsStorage``): every set goes to the storage, and the storage's reports of outside
/// changes come back to the node.
@usableFromInline
final class CustomStorageBinding<Value, S: Storage<Value>>: @unchecked Sendable {
    // `@unchecked Sendable`: `storage` is only touched under `lock`.
    /// Held while a set or a reload changes the storage and the node, so both see one order.
    private let lock = Mutex<Void>(())
    /// The storage. Guarded by `lock`.
    nonisolated(unsafe) private var storage: S

    init(storage: S) {
        self.storage = storage
    }

    /// The storage's value.
    var value: Value { lock.withLock { _ in storage.value } }

    /// Gives the storage its context, once the node exists (before anyone else can use the node). A
    /// storage that reports a change from inside `loaded` is heard.
    func attach(to node: StoredNode<Value, S>) {
        let context = StorageContext { [weak node] in
            guard let node, let binding = node.customBinding else { return }
            binding.reload(into: node)
        }
        var loading = lock.withLock { _ in storage }
        loading.loaded(context: context)
        lock.withLock { _ in storage = loading }
        reload(into: node)
    }

    /// Sets the storage's value and the node's, then spreads the change.
    @usableFromInline
    func write(_ newValue: Value, to node: StoredNode<Value, S>) {
        var notifications = GraphNotifications()
        lock.withLock { _ in
            storage.value = newValue
            _ = node.store(newValue, notifying: &notifications)
        }
        notifications.deliver(on: EvaluationThread.current)
        notifications.discard()
    }

    /// Sets the storage's value to what the node already holds (`unsafeModify` changed it in place).
    func writeQuietly(_ value: Value) {
        lock.withLock { _ in storage.value = value }
    }

    /// The node takes the storage's value and spreads it if it differs.
    func reload(into node: StoredNode<Value, S>) {
        var notifications = GraphNotifications()
        lock.withLock { _ in
            _ = node.store(storage.value, notifying: &notifications)
        }
        notifications.deliver(on: EvaluationThread.current)
        notifications.discard()
    }

    deinit {
        storage.unloaded()
    }
}
