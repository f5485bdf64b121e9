import Synchronization

/// One tracking scope: the root that `withGraphTracking { }` makes, or a group or map inside it.
///
/// A group or map runs its body with recording, and runs it again after a change of anything the last
/// run read: the first run at once, on the caller's thread; every later one in a task on the
/// isolation the scope was made on (the main actor for UI code). Changes before that task starts are
/// coalesced into its one run, which reads the newest values; runs of one scope never overlap, and a
/// change during a run makes it go round again. A run first cancels the scopes the previous run made
/// inside it (it makes them again as it goes). Cancelling a scope cancels its children, lets go of
/// its body (and everything the body holds) at once, and leaves the nodes it watched.
// @unchecked Sendable: every `nonisolated(unsafe)` field is only touched under `lock`; `body` is taken out under it and runs on the scope's isolation, one run at a time
final class TrackingScope: @unchecked Sendable {
    /// The scope whose body runs now in this task or thread (`nil` outside any).
    @TaskLocal static var current: TrackingScope?

    private let lock = Mutex<Void>(())
    /// The body, until cancelled; `nil` for a root.
    nonisolated(unsafe) private var body: (() -> Void)?
    nonisolated(unsafe) private var children: [TrackingScope] = []
    nonisolated(unsafe) private weak var parent: TrackingScope?
    nonisolated(unsafe) private var cancelled = false
    nonisolated(unsafe) private var dependencies: [NodeCore] = []
    /// A delivery task is on its way; changes until it starts need nothing more.
    nonisolated(unsafe) private var scheduled = false
    nonisolated(unsafe) private var runs = RerunState()
    /// Starts a task that runs the body again on the scope's isolation (set once, before the first
    /// change can arrive).
    nonisolated(unsafe) private var deliver: (@Sendable () -> Void)?

    /// A root scope (no body).
    init() {}

    /// A scope that runs `body`.
    init(body: @escaping () -> Void) {
        self.body = body
    }

    /// Sets how later runs reach the scope's isolation: `isolation` is the caller's (`#isolation`).
    func deliver(on isolation: isolated (any Actor)?) {
        // Formed as an argument that inherits the actor context and captures the isolated parameter,
        // the closure is isolated to that actor: a task made from it is enqueued on the actor
        // directly, in order with the actor's other work.
        // (Not in the capture list: a captured copy is not the isolated parameter.)
        let run = Self.isolatedClosure { [self] in
            _ = isolation
            self.deliveryStarted()
        }
        lock.withLock { _ in deliver = { Task(operation: run) } }
    }

    private static func isolatedClosure(
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable () async -> Void
    ) -> @isolated(any) @Sendable () async -> Void {
        body
    }

    var isCancelled: Bool { lock.withLock { _ in cancelled } }

    /// Attaches `child`; a child added to a cancelled scope is cancelled at once.
    func addChild(_ child: TrackingScope) {
        let accepted = lock.withLock { _ -> Bool in
            if cancelled { return false }
            children.append(child)
            return true
        }
        if accepted {
            child.lock.withLock { _ in child.parent = self }
        } else {
            child.cancel()
        }
    }

    private func removeChild(_ child: TrackingScope) {
        let removed = lock.withLock { _ -> TrackingScope? in
            guard let index = children.firstIndex(where: { $0 === child }) else { return nil }
            return children.remove(at: index)
        }
        withExtendedLifetime(removed) {}
    }

    /// Cancels (and forgets) the children made by the previous run.
    private func cancelChildren() {
        let list = lock.withLock { _ -> [TrackingScope] in
            defer { children = [] }
            return children
        }
        for child in list {
            child.lock.withLock { _ in child.parent = nil }
            child.cancel()
        }
    }

    /// Stops the scope and everything inside it. Idempotent, and safe from the scope's own body.
    func cancel() {
        let taken = lock.withLock { _ -> (children: [TrackingScope], dependencies: [NodeCore], body: (() -> Void)?, parent: TrackingScope?)? in
            if cancelled { return nil }
            cancelled = true
            defer {
                children = []
                dependencies = []
                body = nil
                deliver = nil
                parent = nil
            }
            return (children, dependencies, body, parent)
        }
        guard let taken else { return }
        taken.parent?.removeChild(self)
        for child in taken.children { child.cancel() }
        for dependency in taken.dependencies { dependency.removeObserver(ObjectIdentifier(self)) }
        // The body, and whatever it captured, goes here, outside the lock.
        withExtendedLifetime(taken.body) {}
    }

    /// Runs the body in the calling context with recording (the first run, or a delivered one).
    func run() {
        let taken = lock.withLock { _ -> (body: () -> Void, previous: [NodeCore])? in
            guard !cancelled, let body else { return nil }
            return (body, dependencies)
        }
        guard let taken else { return }
        cancelChildren()
        let recorder = GraphRecorder(observer: self, previous: taken.previous)
        Self.$current.withValue(self) { recorder.run(taken.body) }
        let reads = recorder.reads
        let kept = lock.withLock { _ -> Bool in
            if cancelled { return false }
            dependencies = reads
            return true
        }
        recorder.leaveDropped(by: self, kept: kept)
    }

    /// The delivery task started on the scope's isolation: runs the body until no change is pending.
    private func deliveryStarted() {
        let start = lock.withLock { _ -> Bool in
            scheduled = false
            return !cancelled && runs.shouldStart()
        }
        guard start else { return }
        repeat {
            run()
        } while lock.withLock { _ in runs.shouldRepeat(stopped: cancelled) }
    }
}

extension TrackingScope: GraphObserver {
    // Its parent (or the root's token) keeps it, not the nodes it watches.
    @usableFromInline
    var isRetainedByDependencies: Bool { false }

    @usableFromInline
    func notifyObservers() {
        // A run that writes a node it read does not run itself again for that write.
        if Self.current === self { return }
        let start = lock.withLock { _ -> (@Sendable () -> Void)? in
            if cancelled || scheduled { return nil }
            if runs.isRunning {
                runs.markPending()
                return nil
            }
            scheduled = true
            return deliver
        }
        start?()
    }
}
