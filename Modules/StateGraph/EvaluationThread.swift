#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A computed node as cycle detection sees it: a name, and the thread running its rule.
@usableFromInline
protocol EvaluatingNode: AnyObject {
    /// The node's name, for the cycle's description.
    var name: String { get }
    /// The `EvaluationThread.id` of the thread running the node's rule, or 0.
    var evaluatingThread: UInt { get }
}

/// The rules running on one thread, outermost first, and the node the thread waits to evaluate.
///
/// A node's rule runs on the reading thread and reads other nodes, whose rules run nested inside it,
/// so each thread has a stack of evaluations. A read of a node that is on the reading thread's own
/// stack is a cycle; so is a wait for a node that another thread evaluates if that thread, or one it
/// waits for, waits for a node on this stack (see `GraphWaits`).
@usableFromInline
final class EvaluationThread: @unchecked Sendable {
    /// One evaluation under way; the node is alive while its rule runs.
    @usableFromInline
    struct Frame {
        @usableFromInline unowned(unsafe) let node: any EvaluatingNode

        @inlinable
        init(node: any EvaluatingNode) {
            self.node = node
        }
    }

    /// Tells this thread from others; never 0.
    @inlinable
    var id: UInt { UInt(bitPattern: ObjectIdentifier(self)) }
    /// The evaluations under way on this thread, innermost last. Only this thread changes it, and not
    /// while it is registered as waiting in `GraphWaits`, whose lock lets another thread read it then.
    @usableFromInline @exclusivity(unchecked) var frames: [Frame] = []
    /// The node this thread waits to evaluate while registered in `GraphWaits` (guarded by its lock).
    @exclusivity(unchecked) unowned(unsafe) var waitingFor: (any EvaluatingNode)?

    private init() {
        frames.reserveCapacity(8)
    }

    /// The names of the nodes from `node`'s evaluation to the innermost one (all if `node` is not
    /// on the stack).
    func names(from node: any EvaluatingNode) -> [String] {
        let start = frames.lastIndex { $0.node === node } ?? 0
        return frames[start...].map(\.node.name)
    }

    /// The cycle a read of `node`, which this thread is already evaluating, closes.
    @usableFromInline
    func cycle(through node: any EvaluatingNode) -> GraphCycleError {
        GraphCycleError(nodes: names(from: node) + [node.name], spansThreads: false)
    }

    // MARK: The current thread's

    @usableFromInline static let key: pthread_key_t = {
        var key = pthread_key_t()
        // The thread's object lives as long as the thread.
        #if canImport(Darwin)
        pthread_key_create(&key) { Unmanaged<EvaluationThread>.fromOpaque($0).release() }
        #else
        pthread_key_create(&key) { raw in
            if let raw { Unmanaged<EvaluationThread>.fromOpaque(raw).release() }
        }
        #endif
        return key
    }()

    /// The calling thread's.
    @inlinable
    static var current: EvaluationThread {
        if let raw = pthread_getspecific(key) { return Unmanaged<EvaluationThread>.fromOpaque(raw).takeUnretainedValue() }
        return makeCurrent()
    }

    @usableFromInline
    static func makeCurrent() -> EvaluationThread {
        let thread = EvaluationThread()
        pthread_setspecific(key, Unmanaged.passRetained(thread).toOpaque())
        return thread
    }
}
