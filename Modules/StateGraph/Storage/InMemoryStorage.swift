/// The storage of a node kept in memory (swift-state-graph 0.25's `InMemoryStorage`): ``Stored`` is
/// `StoredNode<Value, InMemoryStorage<Value>>`.
///
/// The node takes `value` when it is made and keeps the value itself from then on, so this storage
/// only carries the initial value: `Stored(wrappedValue: 1)` and
/// `StoredNode(storage: InMemoryStorage(initialValue: 1))` make the same node.
// @unchecked Sendable: a node copies `value` out when it is made and never touches this storage again, so no two threads share it through a node
public struct InMemoryStorage<Value>: Storage, @unchecked Sendable {
    /// The value.
    public var value: Value

    /// A storage holding `initialValue`.
    public init(initialValue: Value) {
        value = initialValue
    }

    /// Does nothing: a value in memory changes only through its node.
    public func loaded(context: StorageContext) {}

    /// Does nothing.
    public func unloaded() {}
}
