/// What a ``Storage`` is given when a node starts using it: the way to tell the node that the value
/// changed outside it (swift-state-graph 0.25's `StorageContext`).
public struct StorageContext: Sendable {
    private let onStorageUpdated: @Sendable () -> Void

    init(onStorageUpdated: @escaping @Sendable () -> Void) {
        self.onStorageUpdated = onStorageUpdated
    }

    /// Tells the node that the storage's value changed: it reads `value` again and, if the value
    /// differs from what it holds (a value that is not `Equatable` always differs), spreads the change
    /// to its dependents and observers; `onDidSet` is not called. Call it from any thread (it waits
    /// for a set of the node under way on another thread), from inside `loaded(context:)` or from
    /// inside the storage's `value` setter, but not while holding a lock that the storage's `value`
    /// getter takes.
    public func notifyStorageUpdated() {
        onStorageUpdated()
    }
}
