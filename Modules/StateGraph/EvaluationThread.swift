#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Who records a read: nobody (a read from outside), the computed node whose rule is running, or a
/// tracking closure's recorder.
@usableFromInline
enum GraphReader {
    case none
    case evaluation(Unmanaged<ComputedCore>)
    case tracking(Unmanaged<GraphRecorder>)
}

/// What the graph keeps per thread: the recorder of the evaluation or tracking closure running on
/// it, the rules running on it (for cycle detection), the node it waits to evaluate, its batch, and
/// a reusable list for a write's notifications.
///
/// A node's rule runs on the reading thread and reads other nodes, whose rules run nested inside it,
/// so each thread has a stack of evaluations. A read of a node that is on the reading thread's own
/// stack is a cycle; so is a wait for a node that another thread evaluates if that thread, or one it
/// waits for, waits for a node on this stack (see `GraphWaits`).
///
/// A handle to memory the thread owns (freed when it exits), not an object: the handle is copied
/// around the hot paths with no reference counting. One thread-local lookup (`current`) per node
/// read or write; everything else is a field reached through the handle, handed down the evaluation.
// @unchecked Sendable: a handle to one thread's own state: only that thread dereferences it, except `waitingFor` and `frames`, which others read under `GraphWaits`'s lock while it waits
@usableFromInline
struct EvaluationThread: @unchecked Sendable {
    @usableFromInline
    struct State {
        /// Who records the reads made on this thread now (unretained: each is set only while its
        /// owner runs).
        @usableFromInline var reader = GraphReader.none
        /// The evaluations under way on this thread, innermost last (each node is alive while its rule
        /// runs). Only this thread changes it, and not while it is registered as waiting in
        /// `GraphWaits`, whose lock lets another thread read it then.
        @usableFromInline var frames = TrivialList<Unmanaged<ComputedCore>>()
        /// The node this thread waits to evaluate while registered in `GraphWaits` (guarded by its lock).
        var waitingFor: Unmanaged<ComputedCore>?
        /// The batch running on this thread (`withGraphBatch`).
        @usableFromInline var batch: GraphBatch?
        /// A write's list of what to notify, kept between writes so a write does not allocate one (a
        /// write made by an observer, while the list is in use, makes its own).
        @usableFromInline var notificationScratch = GraphNotifications()
    }

    @usableFromInline let state: UnsafeMutablePointer<State>

    @inlinable
    init(state: UnsafeMutablePointer<State>) {
        self.state = state
    }

    /// Tells this thread from others; never 0.
    @inlinable
    var id: UInt { UInt(bitPattern: state) }

    /// Who records the reads made on this thread now.
    @inlinable
    var reader: GraphReader {
        get { state.pointee.reader }
        nonmutating set { state.pointee.reader = newValue }
    }

    /// The batch running on this thread.
    @inlinable
    var batch: GraphBatch? {
        get { state.pointee.batch }
        nonmutating set { state.pointee.batch = newValue }
    }

    /// Whether this thread is running no rule.
    @inlinable
    var isIdle: Bool { state.pointee.frames.isEmpty }

    /// Notes that this thread starts running `node`'s rule.
    @inlinable
    func push(_ node: ComputedCore) {
        state.pointee.frames.append(Unmanaged.passUnretained(node))
    }

    /// Notes that the innermost rule ended.
    @inlinable
    func pop() {
        state.pointee.frames.removeLast()
    }

    /// The node this thread waits to evaluate (under `GraphWaits`' lock).
    var waitingFor: Unmanaged<ComputedCore>? {
        get { state.pointee.waitingFor }
        nonmutating set { state.pointee.waitingFor = newValue }
    }

    /// The names of the nodes from `node`'s evaluation to the innermost one (all if `node` is not
    /// on the stack).
    func names(from node: ComputedCore) -> [String] {
        let frames = state.pointee.frames
        var start = 0
        for index in stride(from: frames.count - 1, through: 0, by: -1)
        where frames[index].toOpaque() == Unmanaged.passUnretained(node).toOpaque() {
            start = index
            break
        }
        return (start..<frames.count).map { frames[$0].takeUnretainedValue().name }
    }

    /// The cycle a read of `node`, which this thread is already evaluating, closes.
    @usableFromInline
    func cycle(through node: ComputedCore) -> GraphCycleError {
        GraphCycleError(nodes: names(from: node) + [node.name], spansThreads: false)
    }

    /// Takes the notification list (empty) for a write.
    @inlinable
    func takeNotifications() -> GraphNotifications {
        var list = GraphNotifications()
        swap(&list, &state.pointee.notificationScratch)
        return list
    }

    /// Gives the list back (emptied by `deliver`) for the next write.
    @inlinable
    func returnNotifications(_ list: inout GraphNotifications) {
        // A write made while the list was out (by an observer) may have returned one already.
        if state.pointee.notificationScratch.relays.capacity == 0 {
            swap(&list, &state.pointee.notificationScratch)
        } else {
            list.discard()
        }
    }

    // MARK: The current thread's

    /// The calling thread's.
    @inlinable
    static var current: EvaluationThread {
        current(in: Unmanaged.passUnretained(GraphLock.shared))
    }

    /// The calling thread's, the key read from `graph` (a node's `NodeCore.graph`), which a read of a
    /// node reaches with loads only, where a global's would go through its lazy initialization.
    @inlinable
    static func current(in graph: Unmanaged<GraphLock>) -> EvaluationThread {
        // Relaxed: the key is published once, and a reader that sees `.max` goes through `madeKey`,
        // whose one-time initialization synchronizes.
        let key = graph._withUnsafeGuaranteedRef { $0.threadKey.load(ordering: .relaxed) }
        if key != .max, let raw = pthread_getspecific(pthread_key_t(truncatingIfNeeded: key)) {
            return EvaluationThread(state: raw.assumingMemoryBound(to: State.self))
        }
        return makeCurrent()
    }

    /// Makes the key (once) and this thread's state.
    @usableFromInline
    static func makeCurrent() -> EvaluationThread {
        let key = madeKey
        if let raw = pthread_getspecific(key) { return EvaluationThread(state: raw.assumingMemoryBound(to: State.self)) }
        let state = UnsafeMutablePointer<State>.allocate(capacity: 1)
        state.initialize(to: State())
        state.pointee.frames.grow(to: 16)
        pthread_setspecific(key, state)
        return EvaluationThread(state: state)
    }

    /// The key, made once (Swift runs a global's initializer once, under a lock).
    private static let madeKey: pthread_key_t = {
        var key = pthread_key_t()
        // The thread's state lives as long as the thread.
        #if canImport(Darwin)
        pthread_key_create(&key) { EvaluationThread.free($0) }
        #else
        pthread_key_create(&key) { raw in
            if let raw { EvaluationThread.free(raw) }
        }
        #endif
        // Published for `current`: a reader that sees `.max` comes here and finds the key made.
        GraphLock.shared.threadKey.store(UInt64(key), ordering: .releasing)
        return key
    }()

    private static func free(_ raw: UnsafeMutableRawPointer) {
        let state = raw.assumingMemoryBound(to: State.self)
        state.pointee.frames.deallocate()
        state.pointee.notificationScratch.discard()
        state.deinitialize(count: 1)
        state.deallocate()
    }
}
