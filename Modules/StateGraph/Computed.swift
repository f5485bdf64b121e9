import Observation
import Synchronization

/// A node whose value is computed from other nodes, cached, and computed again only after one of
/// the nodes it read changed.
///
/// `@GraphComputed var total: Int` declares one as `$total`; the model gives it its rule in `init`:
///
/// ```swift
/// self.$total = .init { [$price, $quantity] _ in
///     $price.wrappedValue * $quantity.wrappedValue
/// }
/// ```
///
/// - **Lazy**: the rule runs when the value is read, never when a dependency changes; a change only
///   marks the node stale.
/// - **Dynamic dependencies**: the reads of each evaluation replace the last evaluation's, so a branch
///   that stops reading a node stops depending on it.
/// - **Consistent**: in a diamond (A feeds B and C, both feed D), a change of A makes D compute once,
///   from the new B and the new C. If a dependency changes while the rule runs, the result is thrown
///   away and the rule runs again, so no reader sees a mix of old and new values.
///
/// Thread safety: any thread may read. The rule runs on the reading thread, one evaluation of a node
/// at a time; a rule must not read its own node (a cycle), and should not write to nodes.
/// The node is `Sendable` when its value is.
public final class Computed<Value>: @unchecked Sendable {
    /// What a rule gets: a way to read without creating dependencies.
    public struct Context {
        @usableFromInline init() {}

        /// Runs `body` without recording what it reads: the node does not depend on those reads.
        public func withoutTracking<R>(_ body: () throws -> R) rethrows -> R {
            try GraphRecorder.with(nil, body)
        }
    }

    /// The name given at creation, for descriptions.
    public let name: String

    // The hot paths are inlinable so that a client's `Computed<Int>` is specialized, not generic.
    @usableFromInline let rule: @Sendable (inout Context) -> Value
    @usableFromInline let lock = Mutex<Void>(())
    /// Held while the rule runs, so one evaluation of this node runs at a time.
    @usableFromInline let evaluationLock = Mutex<Void>(())
    /// Records the reads of each evaluation; used only under `evaluationLock` (and in `deinit`).
    @usableFromInline let recorder: GraphRecorder
    /// What the nodes this one reads keep in their dependent lists (see `DependentHandle`).
    @usableFromInline let handle = DependentHandle()
    // Guarded by `lock`.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var cached: Value?
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var isStale = true
    /// Bumped by every invalidation; an evaluation commits only if it did not move.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var generation: UInt64 = 0
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var dependents = DependentSet()
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var observedSinceNotification = false

    @usableFromInline let evaluations = Atomic<Int>(0)
    /// Reports reads and changes to Observation (see `ObservationRelay`).
    @usableFromInline let relay = ObservationRelay()

    /// Creates a node computed by `rule`.
    ///
    /// - Parameters:
    ///   - name: A name for descriptions.
    ///   - rule: Computes the value; every node it reads becomes a dependency.
    public init(name: String = "computed", _ rule: @escaping @Sendable (inout Context) -> Value) {
        self.name = name
        self.rule = rule
        recorder = GraphRecorder(owner: handle, isEvaluation: true, previous: [])
        handle.attach(self)
    }

    deinit {
        // Not removed from the lists of the nodes it read: see `DependentHandle.detach()`.
        handle.detach()
    }

    /// How many times the rule has run (for tests and diagnostics).
    package var evaluationCount: Int { evaluations.load(ordering: .relaxed) }

    /// The value: the cached one, or computed now if a dependency changed since.
    @inlinable
    public var wrappedValue: Value {
        var external = true
        if let reader = GraphRecorder.current {
            if reader.record(self), let owner = reader.owner { addDependent(owner) }
            external = !reader.isEvaluation
        }
        if external { relay.access() }
        var fresh: Value?
        lock.withLock { _ in
            if external && !observedSinceNotification { observedSinceNotification = true }
            if !isStale { fresh = cached }
        }
        if let fresh { return fresh }
        return evaluate()
    }

    /// The node itself.
    public var projectedValue: Computed<Value> { self }

    /// Runs the rule until an evaluation completes with no dependency changing under it.
    @inlinable
    func evaluate() -> Value {
        evaluationLock.withLock { _ in
            while true {
                var fresh: Value?
                var startGeneration: UInt64 = 0
                lock.withLock { _ in
                    if !isStale { fresh = cached }
                    startGeneration = generation
                }
                // Another thread computed it while this one waited for the evaluation lock.
                if let fresh { return fresh }
                recorder.restart()
                var context = Context()
                let value = GraphRecorder.with(recorder) { rule(&context) }
                evaluations.add(1, ordering: .relaxed)
                let committed = lock.withLock { _ -> Bool in
                    guard generation == startGeneration else { return false }
                    cached = value
                    isStale = false
                    return true
                }
                dropStaleEdges()
                if committed { return value }
            }
        }
    }

    /// Removes this node from the dependents of what the last evaluation no longer read.
    @usableFromInline
    func dropStaleEdges() {
        for dropped in recorder.droppedDependencies() {
            dropped.removeDependent(ObjectIdentifier(handle))
        }
    }
}

extension Computed: GraphDependency {
    @usableFromInline
    func addDependent(_ dependent: any GraphDependent) {
        lock.withLock { _ in dependents.insert(dependent) }
    }

    @usableFromInline
    func removeDependent(_ id: ObjectIdentifier) {
        lock.withLock { _ in dependents.remove(id) }
    }
}

extension Computed: GraphDependent {
    @usableFromInline
    var isRetainedByDependencies: Bool { false }

    @usableFromInline
    func invalidate(_ work: inout GraphPropagation) {
        let notify = lock.withLock { _ -> Bool? in
            generation &+= 1
            if isStale { return nil }
            isStale = true
            dependents.collect(into: &work.pending)
            let observed = observedSinceNotification
            observedSinceNotification = false
            return observed
        }
        // The relay, not the node: nothing may keep the node past the handle's lock.
        if notify == true { work.notifications.append(relay) }
    }
}

extension Computed: CustomDebugStringConvertible {
    /// The node's name and its cached value, if it has a fresh one.
    public var debugDescription: String {
        let current = lock.withLock { _ in isStale ? nil : cached }
        return "Computed(\(name): \(current.map { "\($0)" } ?? "stale"))"
    }
}
