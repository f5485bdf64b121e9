import Synchronization

/// A flag shared between the writer's queue and the main thread.
final class Atomic<Value: AtomicRepresentable>: Sendable where Value: Sendable {
    private let storage: Synchronization.Atomic<Value>
    init(_ value: Value) { storage = Synchronization.Atomic(value) }
    func store(_ value: Value) { storage.store(value, ordering: .sequentiallyConsistent) }
    func load() -> Value { storage.load(ordering: .sequentiallyConsistent) }
}
