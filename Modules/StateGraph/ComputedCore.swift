import Synchronization

/// The non-generic part of a computed node: its state, what its rule read, its edges.
///
/// `state` is one word: bit 0 says the cached value is fresh, bit 1 that an evaluation is under way
/// (the evaluation lock), bit 2 that a thread waits for that evaluation, and the rest is the
/// generation. An invalidation moves it to a new, stale generation and keeps bits 1 and 2; an
/// evaluation starts by setting bit 1 on a stale state and commits by moving that generation to its
/// fresh state (clearing bits 1 and 2) in one compare-and-swap, which fails if an invalidation came
/// in between; the rule then runs again. So an evaluation costs two atomic operations on this word,
/// and a read of a fresh node none.
// @unchecked Sendable: the `nonisolated(unsafe)` evaluation fields are touched only by the thread holding the evaluation (bit 1 of `state`) or by `retire()`; `owner`/`hasOwner` are set once before the node is shared; the rest are atomics and constants
@usableFromInline
final class ComputedCore: NodeCore, @unchecked Sendable {
    @usableFromInline static let fresh: UInt64 = 1
    @usableFromInline static let evaluating: UInt64 = 2
    @usableFromInline static let waited: UInt64 = 4
    /// One generation: an invalidation adds it.
    @usableFromInline static let generation: UInt64 = 8

    /// The `EvaluationThread.id` of the thread running the rule, or 0 (for cycle detection).
    @usableFromInline let evaluator = Atomic<UInt>(0)
    /// Set when the node is read outside any evaluation, so an invalidation knows Observation may be
    /// watching (see `Computed.lockFreeRead`).
    @usableFromInline let observedSinceNotification = Atomic<Bool>(false)
    /// Reports reads and changes to Observation.
    @usableFromInline let relay = ObservationRelay()
    /// How many times the rule ran; written only by the evaluating thread.
    @usableFromInline let evaluations = Atomic<Int>(0)

    // What the rule read. Used only by the thread holding the evaluation (bit 1 of `state`), and by
    // `retire()`.

    /// The reads of the last committed evaluation, each retained once; their edges exist.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var dependencies = TrivialList<Unmanaged<NodeCore>>()
    /// How many reads of this evaluation matched `dependencies` position by position, so far.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var matched = 0
    /// Whether a read differed from `dependencies` at its position; from then on reads go to `records`.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var diverged = false
    /// Once diverged: every read of this evaluation, in order, with the version it saw.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var records = TrivialList<ReadRecord>()
    /// Keeps the nodes read after diverging alive until the commit (the rule may have made and
    /// dropped them).
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var keep: [NodeCore] = []
    /// The graph's clock (`GraphLock.tick`) when the rule last started, or the latest stamp of a
    /// computed node it read, if later: a dependency whose `changedAt` is no later than this still has
    /// the value the run read (see `record(computed:version:)`).
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var evaluatedAt: UInt64 = 0
    /// Whether the cached value is the result of the reads in `dependencies` (a run whose reads
    /// turned out stale before its commit leaves it `false`).
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var cacheMatchesReads = false
    /// The node, to bring it up to date when a dependent verifies its dependencies; `nil` once the
    /// node is gone (its core can outlive it: see `deinit`).
    @usableFromInline nonisolated(unsafe) weak var owner: AnyObject?
    /// Whether `owner` was set (a node made with a descriptor); set once, before the node is shared.
    @usableFromInline nonisolated(unsafe) var hasOwner = false
    /// Whether a node made with a descriptor was among this node's dependencies, or theirs, when they
    /// last changed: only then can `readsStillHold` find nothing changed (a plain node's new value
    /// is always a change), so others skip it. Read by any thread checking this node (a stale
    /// answer only loses a cut-off, never serves a stale value).
    @usableFromInline let cutOffUpstream = Atomic<Bool>(false)
    /// Brings `owner` up to date (see `Computed.refresher`).
    @usableFromInline let refresher: Refresher

    /// A function that makes a computed node (its first argument) fresh, recording no read.
    @usableFromInline typealias Refresher = (AnyObject, EvaluationThread) -> Void

    @usableFromInline
    init(name: String, location: SourceLocation, refresher: @escaping Refresher) {
        self.refresher = refresher
        super.init(name: name, location: location, computed: true)
    }

    // The core outlives its `Computed` while nodes that read it hold it in their dependency lists
    // (a node made and read inside a rule, say): it stays in its own dependencies' lists meanwhile,
    // so changes still reach those readers. It leaves them when it goes. Cores are never released
    // under `GraphLock` (lists are released after leaving it), so taking it here cannot deadlock.
    deinit {
        retire()
        records.deallocate()
    }

    // MARK: Invalidation

    /// Marks this node stale (under `GraphLock`); if it was fresh, queues its dependents and collects
    /// its observers.
    @inlinable @inline(__always)
    final func invalidate(into notifications: inout GraphNotifications,
                          stack: inout TrivialList<Unmanaged<ComputedCore>>) {
        var old = state.load(ordering: .relaxed)
        while true {
            // A new generation, stale; moved even when already stale, so a running evaluation is discarded.
            let (exchanged, current) = state.compareExchange(expected: old, desired: (old & ~Self.fresh) &+ Self.generation,
                                                             ordering: .sequentiallyConsistent)
            if exchanged { break }
            old = current
        }
        // Already stale: so is everything downstream (nothing downstream can be fresh before this is).
        if old & Self.fresh == 0 { return }
        for index in 0..<dependents.count { stack.append(dependents[index]) }
        if !observers.isEmpty { observers.collect(into: &notifications) }
        // After `state` (see `Computed.lockFreeRead`): a reader that saw the old value and then this
        // flag set is notified.
        if observedSinceNotification.load(ordering: .sequentiallyConsistent),
           observedSinceNotification.exchange(false, ordering: .sequentiallyConsistent) {
            notifications.append(relay: relay)
        }
    }

    // MARK: Evaluating

    /// Starts recording an evaluation's reads.
    @inlinable
    func restartReads() {
        matched = 0
        if diverged {
            diverged = false
            records.removeAll()
        }
    }

    /// Notes that the rule read `node`, which had `version` then.
    ///
    /// A read that matches the committed list at its position only moves a counter: no retain, no
    /// append, no edge. At the first read that differs, the matched prefix is copied to `records`,
    /// and from then on each read is noted with its node's version (and the node kept alive until the
    /// commit, which changes the edges: `applyEdges`).
    @inlinable @inline(__always)
    func record(_ node: NodeCore, version: UInt64) {
        if !diverged {
            if matched < dependencies.count && dependencies[matched].toOpaque() == Unmanaged.passUnretained(node).toOpaque() {
                matched += 1
                return
            }
            diverge()
        }
        records.append(ReadRecord(node: .passUnretained(node), version: version))
        keep.append(node)
    }

    /// Notes that the rule read the computed node `node` (see `record(_:version:)`), and that its
    /// value is the one stamped `node.changedAt`: a later check of this run's reads must not take that
    /// stamp for a change after the read (the node may well have computed its value during this run,
    /// after `evaluatedAt`). A change after the read reaches this node before its commit (through the
    /// edge, or the edge's version check), so the run's result never stands on it.
    @inlinable @inline(__always)
    func record(computed node: ComputedCore, version: UInt64) {
        let stamp = node.changedAt.load(ordering: .relaxed)
        if stamp > evaluatedAt { evaluatedAt = stamp }
        record(node, version: version)
    }

    /// The first read that differs from the committed list: copies the matched prefix to `records`
    /// (those nodes' edges exist, so their versions are never checked).
    @usableFromInline
    func diverge() {
        diverged = true
        for index in 0..<matched { records.append(ReadRecord(node: dependencies[index], version: 0)) }
    }

    /// Whether this evaluation read exactly what the last committed one read (no edge to change).
    @inlinable
    var readsMatchDependencies: Bool { !diverged && matched == dependencies.count }

    /// Ends an evaluation that started at `start` (bit 1 set): turns that generation fresh, unless an
    /// invalidation moved it meanwhile. Returns whether it committed; wakes threads waiting for it.
    @inlinable
    func finishEvaluation(from start: UInt64) -> Bool {
        let generationBits = ~(Self.fresh | Self.evaluating | Self.waited)
        var current = start
        while true {
            if current & generationBits != start & generationBits { return false }
            let (exchanged, seen) = state.compareExchange(expected: current, desired: (current & generationBits) | Self.fresh,
                                                          ordering: .sequentiallyConsistent)
            if exchanged {
                if current & Self.waited != 0 { GraphWaiters.wakeAll() }
                return true
            }
            current = seen
        }
    }

    /// Waits until no evaluation of this node is under way (another thread's: the caller has ruled out
    /// its own and cycles).
    @usableFromInline
    func waitWhileEvaluating() {
        var current = state.load(ordering: .acquiring)
        while current & Self.evaluating != 0 {
            if current & Self.waited == 0 {
                let (exchanged, seen) = state.compareExchange(expected: current, desired: current | Self.waited,
                                                              ordering: .sequentiallyConsistent)
                if !exchanged {
                    current = seen
                    continue
                }
            }
            // Until the evaluation ends, or another starts that does not know of this waiter (then mark again).
            let marked = Self.evaluating | Self.waited
            GraphWaiters.wait { self.state.load(ordering: .acquiring) & marked == marked }
            current = state.load(ordering: .acquiring)
        }
    }

    // MARK: The equality cut-off

    /// Whether every node the last run read still has the value it read, so that the cached value
    /// is still the rule's result and the rule need not run (a dependency that computed a value
    /// equal to its last one has not changed). Brings stale computed dependencies up to date, in the
    /// order the rule read them, stopping at the first that changed (the rule might not read the
    /// rest). Called by the evaluating thread, holding the evaluation.
    @usableFromInline
    func readsStillHold(on thread: EvaluationThread) -> Bool {
        guard cacheMatchesReads, !dependencies.isEmpty, cutOffUpstream.load(ordering: .relaxed) else { return false }
        let since = evaluatedAt
        for index in 0..<dependencies.count {
            let unchanged = dependencies[index]._withUnsafeGuaranteedRef { node -> Bool in
                if node.isComputed {
                    let computed = unsafeDowncast(node, to: ComputedCore.self)
                    if computed.state.load(ordering: .acquiring) & Self.fresh == 0 {
                        guard computed.hasOwner, let owner = computed.owner else { return false }
                        computed.refresher(owner, thread)
                    }
                }
                return node.changedAt.load(ordering: .acquiring) <= since
            }
            if !unchanged { return false }
        }
        return true
    }

    /// Notes that this node's value differs from its last one (before the value turns fresh).
    ///
    /// One past the clock, without advancing it (no contended write per evaluation): this node was
    /// made stale by a stored write, which advanced the clock (by 2) after every read of the old
    /// value, so a run that read the old value started, and saw stamps, below this one; and a later
    /// write's stamp is above it.
    @inlinable
    func stampChange() {
        // Released before the value turns fresh (a sequentially consistent exchange), so a dependent
        // that sees it fresh sees the stamp.
        let now = graph._withUnsafeGuaranteedRef { $0.tick.load(ordering: .acquiring) } &+ 1
        changedAt.store(now, ordering: .releasing)
    }

    // MARK: Edges

    /// Makes the edges match the evaluation's reads, when they differ from the last committed ones;
    /// returns whether every newly read node is still as the rule saw it (if not, the rule must run
    /// again). Called by the evaluating thread.
    ///
    /// Edges are not added as the rule reads: a read only notes the node and its version. Here, under
    /// `GraphLock`, each new edge is added and its node's version compared with the one read: a change
    /// in between (which could not reach this node, the edge not existing yet) shows as a different
    /// version. Edges the last evaluation had are already in place, and any change to those nodes
    /// marked this node stale.
    @usableFromInline
    func applyEdges() -> Bool {
        var reads = TrivialList<Unmanaged<NodeCore>>()
        if diverged {
            for index in 0..<records.count { reads.append(records[index].node) }
        } else {
            for index in 0..<matched { reads.append(dependencies[index]) }
        }
        // The new list owns its nodes; they are alive (held by the old list or by `keep`).
        for index in 0..<reads.count { _ = reads[index].retain() }
        var old = dependencies
        let inOld = Membership(old)
        let inReads = Membership(reads)
        let me = Unmanaged.passUnretained(self)
        var valid = true
        withGraphLock {
            var added = Membership(capacity: reads.count)
            for index in 0..<reads.count {
                let node = reads[index]
                if inOld.contains(node) { continue }
                let now = node._withUnsafeGuaranteedRef { $0.state.load(ordering: .relaxed) }
                if records[index].version != Self.version(of: now) { valid = false }
                if added.insert(node) { node._withUnsafeGuaranteedRef { $0.dependents.append(me) } }
            }
            var removed = Membership(capacity: old.count)
            for index in 0..<old.count {
                let node = old[index]
                if inReads.contains(node) || !removed.insert(node) { continue }
                node._withUnsafeGuaranteedRef { $0.removeDependent(me) }
            }
            dependencies = reads
        }
        var upstream = false
        for index in 0..<reads.count where !upstream {
            upstream = reads[index]._withUnsafeGuaranteedRef { node in
                guard node.isComputed else { return false }
                let computed = unsafeDowncast(node, to: ComputedCore.self)
                return computed.hasOwner || computed.cutOffUpstream.load(ordering: .relaxed)
            }
        }
        if upstream != cutOffUpstream.load(ordering: .relaxed) { cutOffUpstream.store(upstream, ordering: .relaxed) }
        // After the lock: a last release frees a node, which must not happen under it.
        for index in 0..<old.count { old[index].release() }
        old.deallocate()
        keep.removeAll(keepingCapacity: true)
        return valid
    }

    /// What an edge's check compares: a node's state without the evaluation's lock bits (a stored
    /// node never sets them).
    @inlinable
    static func version(of state: UInt64) -> UInt64 {
        state & ~(evaluating | waited)
    }

    /// Leaves the dependent lists of the nodes this one read (the node is going away) and lets go of
    /// them.
    func retire() {
        var old = dependencies
        dependencies = TrivialList()
        guard !old.isEmpty else { return }
        let me = Unmanaged.passUnretained(self)
        withGraphLock {
            var removed = Membership(capacity: old.count)
            for index in 0..<old.count where removed.insert(old[index]) {
                old[index]._withUnsafeGuaranteedRef { $0.removeDependent(me) }
            }
        }
        for index in 0..<old.count { old[index].release() }
        old.deallocate()
    }
}

/// One read an evaluation made: the node and the version it had when read (unretained: the node
/// is kept alive by the dependency list or by `ComputedCore.keep`).
@usableFromInline
struct ReadRecord {
    @usableFromInline let node: Unmanaged<NodeCore>
    @usableFromInline let version: UInt64

    @inlinable
    init(node: Unmanaged<NodeCore>, version: UInt64) {
        self.node = node
        self.version = version
    }
}

/// Which nodes a list holds: a linear search for short lists (most rules read a few nodes), a set
/// for long ones.
struct Membership {
    private var small: [UnsafeMutableRawPointer] = []
    private var large: Set<UnsafeMutableRawPointer>?

    private static let linearLimit = 16

    init(capacity: Int) {
        if capacity > Self.linearLimit { large = Set(minimumCapacity: capacity) } else { small.reserveCapacity(capacity) }
    }

    init(_ list: TrivialList<Unmanaged<NodeCore>>) {
        self.init(capacity: list.count)
        for index in 0..<list.count { _ = insert(list[index]) }
    }

    func contains(_ node: Unmanaged<NodeCore>) -> Bool {
        let key = node.toOpaque()
        if let large { return large.contains(key) }
        return small.contains(key)
    }

    /// Inserts `node`; returns whether it was new.
    mutating func insert(_ node: Unmanaged<NodeCore>) -> Bool {
        let key = node.toOpaque()
        if large != nil { return large!.insert(key).inserted }
        if small.contains(key) { return false }
        small.append(key)
        return true
    }
}
