import Observation
import Synchronization

/// A node that holds a value: set it and every node that read it is marked stale.
///
/// `@GraphStored var count = 0` declares one as `$count`; it can also be made directly:
///
/// ```swift
/// let count = Stored(name: "count", wrappedValue: 0)
/// let doubled = Computed { _ in count.wrappedValue * 2 }
/// count.wrappedValue = 21
/// doubled.wrappedValue        // 42, computed now (reading is what computes)
/// ```
///
/// A stored node keeps its value in memory, or in a defaults suite (`init(name:backing:defaultValue:)`),
/// where it survives relaunches and sees other processes' writes.
///
/// Setting an `Equatable` value equal to the current one changes nothing: no dependent is marked
/// stale, nobody is notified and nothing is written. Non-`Equatable` values always count as changed
/// in memory; in a suite, a value whose encoding is what the suite holds (dictionary keys in any
/// order) changes nothing either.
///
/// Thread safety: reads and writes may come from any thread. The node is `Sendable` when its value is.
public final class Stored<Value>: @unchecked Sendable {
    /// The name given at creation (the property's name for `@GraphStored`), for descriptions.
    public let name: String

    // The hot paths are inlinable so that a client's `Stored<Int>` is specialized, not generic.
    @usableFromInline let lock = Mutex<Void>(())
    // Guarded by `lock`.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var value: Value
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var dependents = DependentSet()
    /// Set when the node is read outside any evaluation, so a write knows Observation may be watching.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var observedSinceNotification = false
    /// The work list of the last write's invalidation, empty but keeping its capacity, so a write does
    /// not allocate one. Guarded by `lock`, which a write holds for the whole invalidation.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var pendingScratch: [any GraphDependent] = []

    @usableFromInline let isEqual: ((Value, Value) -> Bool)?
    @usableFromInline let registrar = ObservationRegistrar()
    @usableFromInline let keyPath: KeyPath<Stored<Value>, Value> = \Stored<Value>.wrappedValue
    /// The suite this node is kept in, for backed nodes.
    @usableFromInline let suiteBinding: SuiteBinding<Value>?

    init(name: String, value: Value, isEqual: ((Value, Value) -> Bool)?, binding: SuiteBinding<Value>?) {
        self.name = name
        self.value = value
        self.isEqual = isEqual
        self.suiteBinding = binding
    }

    /// Creates a node kept in memory.
    ///
    /// - Parameters:
    ///   - name: A name for descriptions.
    ///   - wrappedValue: The initial value.
    public convenience init(name: String = "stored", wrappedValue: Value) {
        self.init(name: name, value: wrappedValue, isEqual: nil, binding: nil)
    }

    /// The value. Reading it inside a computed node's rule or a tracking closure records the read.
    @inlinable
    public var wrappedValue: Value {
        get {
            if let recorder = GraphRecorder.current { return recordedRead(recorder) }
            registrar.access(self, keyPath: keyPath)
            return lock.withLock { _ in
                if !observedSinceNotification { observedSinceNotification = true }
                return value
            }
        }
        set {
            if let binding = suiteBinding {
                binding.write(newValue, to: self)
            } else {
                replace(with: newValue)
            }
        }
    }

    /// A read inside an evaluation or a tracking closure: records it and links the reader.
    @inlinable
    func recordedRead(_ recorder: GraphRecorder) -> Value {
        let needsEdge = recorder.record(self)
        let external = !recorder.isEvaluation
        if external { registrar.access(self, keyPath: keyPath) }
        return lock.withLock { _ in
            if needsEdge, let owner = recorder.owner { dependents.insert(owner) }
            if external && !observedSinceNotification { observedSinceNotification = true }
            return value
        }
    }

    /// The node itself, so `model.$count.projectedValue` and `$count` read alike in generated code.
    public var projectedValue: Stored<Value> { self }

    /// Sets the value in memory and, if it changed, spreads the change. Returns whether it changed.
    @inlinable @discardableResult
    func replace(with newValue: Value) -> Bool {
        guard let change = store(newValue) else { return false }
        change.spread()
        return true
    }

    /// Whether `candidate` is equal to the value (always `false` for a value that is not `Equatable`).
    func holds(_ candidate: Value) -> Bool {
        guard let isEqual else { return false }
        return lock.withLock { _ in isEqual(value, candidate) }
    }

    /// The value, read without recording or notifying.
    var currentValue: Value { lock.withLock { _ in value } }

    /// Sets the value and marks every dependent stale, both under the node's lock, so no reader can see
    /// the new value while a node computed from the old one still looks fresh. Returns what to notify
    /// (outside the lock), or `nil` when the value is equal to the current one.
    @inlinable
    func store(_ newValue: Value) -> StoredChange? {
        var work = GraphPropagation()
        let replaced = lock.withLock { _ -> Bool in
            if let isEqual, isEqual(value, newValue) { return false }
            value = newValue
            if observedSinceNotification {
                observedSinceNotification = false
                work.notifications.append(self)
            }
            if !dependents.isEmpty {
                swap(&work.pending, &pendingScratch)
                dependents.collect(into: &work.pending)
                work.invalidateAll()
                // Empty again (`invalidateAll` drains it): hand the buffer back for the next write.
                swap(&work.pending, &pendingScratch)
            }
            return true
        }
        return replaced ? StoredChange(notifications: work.notifications) : nil
    }
}

/// A stored node's change, made and spread through the graph, whose observers are still to be told.
@usableFromInline
struct StoredChange {
    @usableFromInline var notifications: [any GraphNotifying]

    @usableFromInline
    init(notifications: [any GraphNotifying]) {
        self.notifications = notifications
    }

    /// Notifies the observers (or queues them for the end of the running batch).
    @usableFromInline
    func spread() {
        GraphPropagation.notify(notifications)
    }
}

extension Stored where Value: Equatable {
    /// Creates a node kept in memory; setting a value equal to the current one changes nothing.
    ///
    /// - Parameters:
    ///   - name: A name for descriptions.
    ///   - wrappedValue: The initial value.
    public convenience init(name: String = "stored", wrappedValue: Value) {
        self.init(name: name, value: wrappedValue, isEqual: { $0 == $1 }, binding: nil)
    }
}

extension Stored: Observable {}

extension Stored: GraphDependency {
    @usableFromInline
    func addDependent(_ dependent: any GraphDependent) {
        lock.withLock { _ in dependents.insert(dependent) }
    }

    @usableFromInline
    func removeDependent(_ id: ObjectIdentifier) {
        lock.withLock { _ in dependents.remove(id) }
    }
}

extension Stored: GraphNotifying {
    @usableFromInline
    func notifyObservers() {
        registrar.willSet(self, keyPath: keyPath)
        registrar.didSet(self, keyPath: keyPath)
    }
}

extension Stored: CustomDebugStringConvertible {
    /// The node's name and current value, read without recording.
    public var debugDescription: String {
        let current = lock.withLock { _ in value }
        return "Stored(\(name): \(current))"
    }
}
