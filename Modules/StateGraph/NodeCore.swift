import Synchronization

/// The one lock of the graph's edges: every node's `dependents` and `observers`, every change of a
/// computed node's edges, and every invalidation.
///
/// One lock for the whole graph, not one per node: a write marks everything downstream of it stale
/// under a single acquisition (per-node locks cost a lock, and the retains that keep each node
/// alive, per node marked), and an evaluation that reads what it read last time changes no edge and
/// takes it not at all. What it guards is small and runs no code of the program's own, so it is held
/// briefly: a write marks under it, an evaluation whose reads changed updates its edges under it.
/// Rules never run under it. Lock order: a stored node's lock, then this one; nothing under this
/// lock takes another lock, or releases an object of the program's own (removed observers and old
/// dependency lists are released after leaving it, so no `deinit` runs under it).
// @unchecked Sendable: `stack` is only touched under `mutex`; `tick` and `threadKey` are atomics
@usableFromInline
final class GraphLock: @unchecked Sendable {
    @usableFromInline static let shared = GraphLock()

    @usableFromInline let mutex = Mutex<Void>(())
    /// The invalidation work list, reused by every write (guarded by `mutex`).
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var stack = TrivialList<Unmanaged<ComputedCore>>()
    /// The graph's clock for the equality cut-off: advanced by 2 by every stored write that has
    /// dependents, whose node keeps the new reading in `NodeCore.changedAt`; a computed node whose
    /// value changed keeps the reading plus 1 (see `ComputedCore.evaluatedAt`).
    @usableFromInline let tick = Atomic<UInt64>(0)
    /// The thread-local key of `EvaluationThread`'s state, `.max` until made: kept here, where a read
    /// of a node finds it through the node, with no check of a global's lazy initialization.
    @usableFromInline let threadKey = Atomic<UInt64>(UInt64.max)

    private init() {}
}

/// The part of a node the graph sees, whatever its value's type: its version, the computed nodes
/// that read it and its observers.
///
/// Non-generic, so the graph's bookkeeping (marking, edges) is one compiled routine for every
/// node, not one per value type, and a dependency list holds plain references to it. `Stored` owns
/// one of these; `Computed` owns a `ComputedCore`.
// @unchecked Sendable: `dependents` and `observers` are only touched under `GraphLock`; every other field is an atomic or a constant
@usableFromInline
class NodeCore: @unchecked Sendable {
    /// A stored node's version: bumped by 2 on every write that changes it (under the node's lock).
    /// A computed node's generation and freshness (see `ComputedCore`). An evaluation records it with
    /// each read, so that an edge it adds afterwards can be checked against changes in between.
    @usableFromInline let state = Atomic<UInt64>(0)
    /// The computed nodes that read this one at their last evaluation, unretained: each removes
    /// itself (`ComputedCore.retire()`) before it goes, and keeps this node alive meanwhile through
    /// its dependency list. Guarded by `GraphLock`.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) final var dependents = TrivialList<Unmanaged<ComputedCore>>()
    /// The graph's lock, kept here so a write reaches it with one load (a global would be checked for
    /// lazy initialization on every access).
    /// Unmanaged: the lock lives as long as the program, and a reference would be retained and
    /// released around every use.
    @usableFromInline let graph = Unmanaged.passUnretained(GraphLock.shared)
    /// The graph's clock (`GraphLock.tick`) when this node's value last changed in a way a dependent
    /// may not have seen: stamped after the new value can be read, so an evaluation that started at
    /// a later reading read the new value.
    @usableFromInline let changedAt = Atomic<UInt64>(0)
    /// Whether this is a `ComputedCore` (checked without a cast when a dependency is verified).
    @usableFromInline let isComputed: Bool
    /// Tracking observers and subscriptions that read this node. Guarded by `GraphLock`.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) final var observers = ObserverSet()

    /// The node's name and where it was made, boxed: one word here, so the fields every read and
    /// write touches stay on the same cache lines.
    private let label: NodeLabel

    /// The node's name, for descriptions and cycle reports.
    final var name: String { label.name }
    /// Where the node was made.
    final var location: SourceLocation { label.location }

    @usableFromInline init(name: String, location: SourceLocation, computed: Bool = false) {
        label = NodeLabel(name: name, location: location)
        isComputed = computed
        if NodeStore.registering.load(ordering: .relaxed) { NodeStore.register(self) }
    }

    deinit {
        dependents.deallocate()
    }

    /// Marks every computed node downstream of this one stale and collects what to notify once the
    /// change has spread. Called under `GraphLock`.
    @usableFromInline
    final func invalidateDependents(into notifications: inout GraphNotifications) {
        if !observers.isEmpty { observers.collect(into: &notifications) }
        guard !dependents.isEmpty else { return }
        graph._withUnsafeGuaranteedRef { lock in
            // The value is in place: a dependent whose evaluation starts at this reading or later reads it.
            // By 2: a computed node's stamp is the clock plus 1 (see `ComputedCore.stampChange`),
            // which must stay below the next write's. Stored writes change the clock under this
            // lock only, so a load and a store suffice; released, so a run that starts at the new
            // reading (an acquiring load) reads the new value.
            let now = lock.tick.load(ordering: .relaxed) &+ 2
            changedAt.store(now, ordering: .relaxed)
            lock.tick.store(now, ordering: .releasing)
            lock.stack.append(contentsOf: dependents)
            while let next = lock.stack.popLast() {
                next._withUnsafeGuaranteedRef { $0.invalidate(into: &notifications, stack: &lock.stack) }
            }
        }
    }

    /// Runs `body` under `GraphLock`.
    @inlinable
    final func withGraphLock<R>(_ body: () -> R) -> R {
        graph._withUnsafeGuaranteedRef { lock in lock.mutex.withLock { _ in body() } }
    }

    /// Removes `core` from `dependents` (under `GraphLock`).
    final func removeDependent(_ core: Unmanaged<ComputedCore>) {
        let target = core.toOpaque()
        for index in 0..<dependents.count where dependents[index].toOpaque() == target {
            dependents.swapRemove(at: index)
            return
        }
    }

    /// Adds `observer` to the observers (it read this node while tracking).
    @usableFromInline
    final func addObserver(_ observer: any GraphObserver) {
        withGraphLock { observers.insert(observer) }
    }

    /// Removes the observer with this identity.
    final func removeObserver(_ id: ObjectIdentifier) {
        // Released here, after the lock: see `ObserverSet.remove`.
        let removed = withGraphLock { observers.remove(id) }
        withExtendedLifetime(removed) {}
    }
}

/// A node's name and location (see `NodeCore.label`).
final class NodeLabel: Sendable {
    let name: String
    let location: SourceLocation

    init(name: String, location: SourceLocation) {
        self.name = name
        self.location = location
    }
}
