/// What a ``Storage`` is given when a node starts using it: the way to tell the node that the value
/// changed outside it (swift-state-graph 0.25's `StorageContext`).
public struct StorageContext: Sendable {
    private let onStorageUpdated: @Sendable () -> Void

    init(onStorageUpdated: @escaping @Sendable () -> Void) {
        self.onStorageUpdated = onStorageUpdated
    }

    /// Tells the node that the storage's value changed: it reads `value` again and, if the value
    /// differs from what it holds, spreads the change to its dependents and observers. Call it from
    /// any thread, and not while holding a lock that the storage's `value` takes.
    public func notifyStorageUpdated() {
        onStorageUpdated()
    }
}
