import Synchronization

/// Runs `apply`, recording the graph nodes it reads, and calls `onChange` once, the first time one of
/// them changes.
///
/// The graph's counterpart of Observation's `withObservationTracking`: `onChange` runs on the thread
/// that made the change, after the change has reached every dependent (so reading a node inside
/// `onChange` gives its new value), or at the end of a `withGraphBatch`. To keep reacting, track
/// again from `onChange`, or use `GraphSubscription` or a tracking scope (``withGraphTracking(_:)``).
///
/// ```swift
/// withGraphObservationTracking {
///     _ = model.shouldShowDebugOptions
/// } onChange: {
///     print("debug options changed")
/// }
/// ```
///
/// - Parameters:
///   - apply: The reads to track; it runs once, now, on the caller's thread.
///   - onChange: Called once, on the thread of the first change of a node `apply` read.
/// - Returns: What `apply` returned.
/// - Throws: What `apply` throws.
@discardableResult
public func withGraphObservationTracking<T>(_ apply: () throws -> T, onChange: @escaping @Sendable () -> Void) rethrows -> T {
    let observer = OneShotObserver(onChange)
    let recorder = GraphRecorder(observer: observer, previous: [])
    let result = try recorder.run(apply)
    observer.attach(to: recorder.reads)
    return result
}

/// An observer that fires once and then lets go of the nodes it watched.
// @unchecked Sendable: `fired` and `dependencies` are only touched under `state`; `onChange` is `@Sendable`
final class OneShotObserver: @unchecked Sendable {
    private let onChange: @Sendable () -> Void
    private let state = Mutex<Void>(())
    nonisolated(unsafe) private var fired = false
    /// The nodes to leave when it fires, held weakly: they hold this observer until then, so strong
    /// references back would keep a node that never changes, and this observer, alive forever.
    nonisolated(unsafe) private var dependencies: [Dependency] = []

    private struct Dependency {
        weak var core: NodeCore?
    }

    init(_ onChange: @escaping @Sendable () -> Void) {
        self.onChange = onChange
    }

    func attach(to reads: [NodeCore]) {
        let detachNow = state.withLock { _ -> Bool in
            dependencies = reads.map { Dependency(core: $0) }
            return fired
        }
        if detachNow { detach() }
    }

    private func detach() {
        let list = state.withLock { _ -> [Dependency] in
            let list = dependencies
            dependencies = []
            return list
        }
        for dependency in list { dependency.core?.removeObserver(ObjectIdentifier(self)) }
    }
}

extension OneShotObserver: GraphObserver {
    // Nobody else keeps a one-shot observer: the nodes it watches do, until it fires.
    @usableFromInline
    var isRetainedByDependencies: Bool { true }

    @usableFromInline
    func notifyObservers() {
        let first = state.withLock { _ -> Bool in
            if fired { return false }
            fired = true
            return true
        }
        guard first else { return }
        detach()
        onChange()
    }
}

/// The one-shot observation's former name, which swift-state-graph's scope function now has.
///
/// - Parameters:
///   - apply: The reads to track.
///   - onChange: Called once, at the first change of a node `apply` read.
/// - Returns: What `apply` returned.
/// - Throws: What `apply` throws.
@available(*, deprecated, renamed: "withGraphObservationTracking(_:onChange:)")
@discardableResult
public func withGraphTracking<T>(_ apply: () throws -> T, onChange: @escaping @Sendable () -> Void) rethrows -> T {
    try withGraphObservationTracking(apply, onChange: onChange)
}
