/// Collects the nodes one tracking closure (`withGraphObservationTracking`, a tracking scope, a subscription's run) reads.
///
/// Its observer's edges are added as it reads (before the value is read, so no change after the read
/// is missed), and `reads` lists what it read. A computed node's evaluation records its reads in the
/// node itself (`ComputedCore`), without retaining them.
@usableFromInline
final class GraphRecorder {
    /// The observer that reads: a one-shot observer or a subscription. Unowned: the observer
    /// outlives the call it records.
    @usableFromInline unowned(unsafe) let observer: any GraphObserver
    /// The previous run's reads (a subscription's), whose edges exist.
    @usableFromInline @exclusivity(unchecked) var previous: [NodeCore]
    /// The reads of this run, in order.
    @usableFromInline @exclusivity(unchecked) var reads: [NodeCore] = []
    /// Whether a read differed from `previous` at its position.
    @usableFromInline @exclusivity(unchecked) var diverged = false

    init(observer: any GraphObserver, previous: [NodeCore]) {
        self.observer = observer
        self.previous = previous
        reads.reserveCapacity(previous.count)
    }

    /// Notes that the closure read `node`, and adds the observer to its observers unless it was read
    /// at this position last time (then the edge exists).
    @inlinable
    func record(_ node: NodeCore) {
        let index = reads.count
        reads.append(node)
        if index < previous.count && previous[index] === node { return }
        diverged = true
        node.addObserver(observer)
    }

    /// The previous reads that this run did not read again: their edges must go.
    func droppedDependencies() -> [NodeCore] {
        if previous.isEmpty { return [] }
        if !diverged && reads.count == previous.count { return [] }
        let kept = Set(reads.map { ObjectIdentifier($0) })
        var seen = Set<ObjectIdentifier>()
        return previous.filter { !kept.contains(ObjectIdentifier($0)) && seen.insert(ObjectIdentifier($0)).inserted }
    }

    /// After a run of `observer`: removes its edges to the previous reads this run did not read again,
    /// or, when the observer was cancelled meanwhile (`kept` false), to everything this run read.
    func leaveDropped(by observer: AnyObject, kept: Bool) {
        let dropped = kept ? droppedDependencies() : reads
        for dependency in dropped { dependency.removeObserver(ObjectIdentifier(observer)) }
    }

    /// Runs `body` with this recorder current on this thread.
    func run<T>(_ body: () throws -> T) rethrows -> T {
        let thread = EvaluationThread.current
        let saved = thread.reader
        thread.reader = .tracking(Unmanaged.passUnretained(self))
        defer { thread.reader = saved }
        return try withExtendedLifetime(self) { try body() }
    }
}
