import Synchronization

/// The threads waiting for another thread's evaluation of a node, so that a wait that would close a
/// cycle of threads is refused instead of blocking forever.
///
/// A thread evaluating `a` that reads `b` while another thread evaluates `b` waits for it. If that
/// thread is itself waiting for `a` (directly, or through a chain of threads each waiting for the
/// next), neither would ever go on. Only a thread that is already running a rule can be waited for,
/// so only such a thread registers here before it waits (one lock, taken only when a node's
/// evaluation lock is busy). Under the lock, it follows the chain from the node it wants: the thread
/// evaluating it, the node that thread waits for, the thread evaluating that, and so on. If the chain
/// comes back to this thread, the wait is refused and the cycle returned. The last thread to close a
/// cycle always sees it: every other thread of the cycle registered before it blocked.
@usableFromInline
enum GraphWaits {
    private static let waiting = Mutex<[UInt: EvaluationThread]>([:])

    /// Registers `thread` as waiting to evaluate `node`, or returns the cycle that wait would close
    /// (and registers nothing).
    @usableFromInline
    static func startWaiting(_ thread: EvaluationThread, for node: ComputedCore) -> GraphCycleError? {
        waiting.withLock { table -> GraphCycleError? in
            var others: [String] = []
            var target = node
            // Each step passes a different waiting thread, so the walk is at most that long.
            for _ in 0...table.count {
                let owner = target.evaluator.load(ordering: .acquiring)
                if owner == 0 { break }
                if owner == thread.id {
                    return GraphCycleError(nodes: others + thread.names(from: target) + [node.name], spansThreads: true)
                }
                // A thread that is not waiting is running, and will finish its rule. One whose wait
                // has just ended (it holds what it waited for) is not waiting either.
                guard let other = table[owner], let wanted = other.waitingFor?.takeUnretainedValue(), wanted !== target else { break }
                others += other.names(from: target)
                target = wanted
            }
            thread.waitingFor = Unmanaged.passUnretained(node)
            table[thread.id] = thread
            return nil
        }
    }

    /// Unregisters `thread`, which now holds the evaluation it waited for.
    @usableFromInline
    static func stopWaiting(_ thread: EvaluationThread) {
        waiting.withLock { table in
            table[thread.id] = nil
            thread.waitingFor = nil
        }
    }
}
