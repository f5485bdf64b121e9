/// Where a stored node keeps its value: swift-state-graph 0.25's `Storage` protocol, the second
/// generic parameter of ``StoredNode`` (its `_Stored<Value, S>`).
///
/// Two storages come with the module: ``InMemoryStorage`` (``Stored``) and ``UserDefaultsStorage``
/// (``UserDefaultsStored``, a key of a defaults suite). A storage of your own (the keychain, a
/// server) conforms to this protocol and is given to `StoredNode(name:storage:)`:
///
/// ```swift
/// struct CountingStorage: Storage {
///     var value: Int
///     func loaded(context: StorageContext) { }   // keep the context to report outside changes
///     func unloaded() { }
/// }
/// let count = StoredNode(name: "count", storage: CountingStorage(value: 0))
/// ```
///
/// How a node uses a storage of your own: it calls `loaded(context:)`, then reads `value` once; sets
/// `value` on every set that changes the node (before the change spreads, under a lock of the
/// node's, so the storage sees sets in the order the node does; a set that changes nothing, an equal
/// value or one `shouldNotify` refuses, does not reach the storage either); and reads it again each
/// time the storage calls ``StorageContext/notifyStorageUpdated()``, which is how a change made
/// elsewhere reaches the node and its dependents. Between those, reads of the node do not ask the
/// storage. `unloaded()` is called when the node is released.
///
/// The storage may call `notifyStorageUpdated()` from any thread, from inside `loaded(context:)` and
/// from inside its own `value` setter (to report that it adjusted the value it was given): the node
/// reads the value once that call, or the set, is done.
public protocol Storage<Value>: Sendable {
    /// The type of the value kept.
    associatedtype Value

    /// Called once, when a node starts using the storage; keep `context` to tell the node that the
    /// value changed outside it.
    mutating func loaded(context: StorageContext)

    /// Called once, when the node that used the storage is released.
    func unloaded()

    /// The value kept.
    var value: Value { get set }
}
