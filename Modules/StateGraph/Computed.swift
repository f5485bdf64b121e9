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
/// at a time, and should not write to nodes. A rule must not read its own node, directly or through
/// others: the read that closes such a cycle gets the node's last value instead of waiting for
/// itself, and the cycle is reported (`GraphCycleError`, `cycleError`). The node is `Sendable` when
/// its value is.
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
    /// The generation (bumped by 2 on every invalidation; an evaluation commits only if it did not
    /// move) and, in bit 0, whether `cached` is fresh. Written only under `lock`, but atomic so that a
    /// read of a fresh node can check it without taking the lock.
    @usableFromInline let state = Atomic<UInt64>(0)
    /// The cached value as bits, for values that fit in a word (see `packsIntoWord`): published before
    /// `state` turns fresh, so a lock-free reader that sees the same fresh `state` before and after
    /// loading it has a consistent value.
    @usableFromInline let cachedBits = Atomic<UInt64>(0)
    /// Set when the node is read outside any evaluation, so an invalidation knows Observation may be
    /// watching. Set and cleared under `lock`; atomic so the lock-free read can check it.
    @usableFromInline let observedSinceNotification = Atomic<Bool>(false)
    // Guarded by `lock`.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var cached: Value?
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var dependents = DependentSet()
    /// How many times the rule ran; a plain counter under `lock`, taken anyway to commit.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var evaluations = 0
    /// The last cycle a read of this node closed (guarded by `lock`).
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var lastCycle: GraphCycleError?
    /// The `EvaluationThread.id` of the thread running the rule (under `evaluationLock`), or 0.
    @usableFromInline let evaluator = Atomic<UInt>(0)

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
    package var evaluationCount: Int { lock.withLock { _ in evaluations } }

    /// The value: the cached one, or computed now if a dependency changed since.
    @inlinable
    public var wrappedValue: Value {
        var external = true
        if let reader = GraphRecorder.current {
            if reader.record(self), let owner = reader.owner { addDependent(owner) }
            external = !reader.isEvaluation
        }
        if external { relay.access() }
        if let fresh = lockFreeRead(external: external) { return fresh }
        // A rule reading a stale word-sized node: `evaluate` checks again under its own lock.
        if Self.packsIntoWord && !external { return evaluate() }
        var fresh: Value?
        lock.withLock { _ in
            if external && !observedSinceNotification.load(ordering: .relaxed) {
                observedSinceNotification.store(true, ordering: .sequentiallyConsistent)
            }
            if state.load(ordering: .relaxed) & 1 != 0 { fresh = cached }
        }
        if let fresh { return fresh }
        return evaluate()
    }

    /// The node itself.
    public var projectedValue: Computed<Value> { self }

    /// Runs the rule until an evaluation completes with no dependency changing under it; a read that
    /// would wait for itself (a cycle) gets the last value instead (see `GraphCycleError`).
    @inlinable
    func evaluate() -> Value {
        let thread = EvaluationThread.current
        // This thread is running this node's rule already: waiting for the lock would wait for itself.
        if evaluator.load(ordering: .relaxed) == thread.id { return readInCycle(thread.cycle(through: self)) }
        if let value = evaluationLock.withLockIfAvailable({ _ in evaluateHoldingLock(on: thread, waited: false) }) {
            return value
        }
        return evaluateAfterWaiting(on: thread)
    }

    /// `evaluate()` once this thread holds `evaluationLock`.
    @inlinable
    func evaluateHoldingLock(on thread: EvaluationThread, waited: Bool) -> Value {
        // Before `stopWaiting`, so a thread following the chain of waits sees this thread has the node.
        evaluator.store(thread.id, ordering: .releasing)
        if waited { GraphWaits.stopWaiting(thread) }
        thread.frames.append(EvaluationThread.Frame(node: self))
        defer {
            thread.frames.removeLast()
            evaluator.store(0, ordering: .releasing)
        }
        do {
            while true {
                var fresh: Value?
                var start: UInt64 = 0
                if Self.packsIntoWord {
                    // `state` only changes under `lock`, and commits only under `evaluationLock`.
                    start = state.load(ordering: .acquiring)
                    if start & 1 != 0 { fresh = Self.unpack(cachedBits.load(ordering: .acquiring)) }
                } else {
                    lock.withLock { _ in
                        start = state.load(ordering: .relaxed)
                        if start & 1 != 0 { fresh = cached }
                    }
                }
                // Another thread computed it while this one waited for the evaluation lock.
                if let fresh { return fresh }
                recorder.restart()
                var context = Context()
                let value = GraphRecorder.with(recorder) { rule(&context) }
                let committed = lock.withLock { _ -> Bool in
                    evaluations += 1
                    guard state.load(ordering: .relaxed) == start else { return false }
                    cached = value
                    if Self.packsIntoWord { cachedBits.store(Self.pack(value), ordering: .releasing) }
                    state.store(start | 1, ordering: .sequentiallyConsistent)
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
        guard recorder.mayHaveDropped else { return }
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
            let old = state.load(ordering: .relaxed)
            // A new generation, stale; bumped even when already stale, so a running evaluation is discarded.
            state.store((old | 1) &+ 1, ordering: .sequentiallyConsistent)
            if old & 1 == 0 { return nil }
            dependents.collect(into: &work.pending)
            // After `state` (see `lockFreeRead`): a reader that saw the old value and then this flag set
            // is notified.
            return observedSinceNotification.exchange(false, ordering: .sequentiallyConsistent)
        }
        // The relay, not the node: nothing may keep the node past the handle's lock.
        if notify == true { work.notifications.append(relay) }
    }
}

extension Computed: CustomDebugStringConvertible {
    /// The node's name and its cached value, if it has a fresh one.
    public var debugDescription: String {
        let current = lock.withLock { _ in state.load(ordering: .relaxed) & 1 != 0 ? cached : nil }
        return "Computed(\(name): \(current.map { "\($0)" } ?? "stale"))"
    }
}

// MARK: Reading a fresh node without the lock

extension Computed {
    /// Whether the value is stored in `cachedBits` too, so that a fresh node can be read lock-free:
    /// only for plain values (no references to retain) that fit in a word, such as `Int`, `Double`
    /// and `Bool`. Decided per specialization at compile time.
    @inlinable
    static var packsIntoWord: Bool {
        _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<UInt64>.size
    }

    /// The bits of `value`; only for `packsIntoWord` types.
    @inlinable
    static func pack(_ value: Value) -> UInt64 {
        var bits: UInt64 = 0
        withUnsafeMutableBytes(of: &bits) { $0.storeBytes(of: value, as: Value.self) }
        return bits
    }

    /// The value `pack` made `bits` from.
    @inlinable
    static func unpack(_ bits: UInt64) -> Value {
        withUnsafeBytes(of: bits) { $0.load(as: Value.self) }
    }

    /// The cached value if the node is fresh and its value fits in a word, read without the lock;
    /// `nil` sends the reader to the locked path.
    ///
    /// Why it is safe: `state` and `cachedBits` change only under `lock`, a commit publishes the bits
    /// before the fresh `state`, and every invalidation moves `state` to a new generation; so a
    /// reader that sees the same fresh `state` before and after loading the bits has the bits of that
    /// generation. An outside reader must also find `observedSinceNotification` set after loading
    /// `state` (it is set only under the lock, so the reader goes there once after each change): then
    /// the invalidation that ends this generation clears it later and notifies Observation, exactly as
    /// if the reader had set it under the lock.
    @inlinable
    func lockFreeRead(external: Bool) -> Value? {
        guard Self.packsIntoWord else { return nil }
        let seen = state.load(ordering: .sequentiallyConsistent)
        guard seen & 1 != 0 else { return nil }
        let bits = cachedBits.load(ordering: .acquiring)
        guard state.load(ordering: .sequentiallyConsistent) == seen else { return nil }
        if external && !observedSinceNotification.load(ordering: .sequentiallyConsistent) { return nil }
        return Self.unpack(bits)
    }
}
