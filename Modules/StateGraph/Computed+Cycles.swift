// What a computed node does when a read would wait for an evaluation that cannot end: its own, on
// this thread, or one on another thread that is waiting for this thread (see `GraphCycleError`).

import Synchronization

extension Computed {
    /// `evaluate(on:)` when an evaluation of this node is under way: a cycle if it is this thread's;
    /// otherwise waits for the other thread, unless that thread is (through others, perhaps) waiting
    /// for an evaluation this thread is running.
    @usableFromInline
    func evaluateAfterWaiting(on thread: EvaluationThread) -> (value: Value, version: UInt64) {
        // This thread is running this node's rule already: waiting would wait for itself.
        if core.evaluator.load(ordering: .relaxed) == thread.id { return readInCycle(thread.cycle(through: core)) }
        // A thread running no rule holds no evaluation anyone could wait for: it cannot close a cycle.
        let registered = !thread.isIdle
        if registered, let cycle = GraphWaits.startWaiting(thread, for: core) { return readInCycle(cycle) }
        while true {
            core.waitWhileEvaluating()
            let seen = core.state.load(ordering: .acquiring)
            if seen & ComputedCore.fresh != 0 {
                if let value = freshValue(seen) {
                    if registered { GraphWaits.stopWaiting(thread) }
                    return (value, seen)
                }
                continue
            }
            if seen & ComputedCore.evaluating != 0 { continue }
            let (exchanged, _) = core.state.compareExchange(expected: seen, desired: seen | ComputedCore.evaluating,
                                                            ordering: .acquiringAndReleasing)
            if exchanged {
                return evaluateHoldingLock(on: thread, from: seen | ComputedCore.evaluating, waited: registered)
            }
        }
    }

    /// A read that closes `cycle`: reports it and returns the node's last value. A rule that reads
    /// its own node before the node ever had a value is a programming error with no value to give
    /// (not bad input): a precondition failure naming the cycle, in debug and release builds alike,
    /// rather than a deadlock.
    @usableFromInline
    func readInCycle(_ cycle: GraphCycleError) -> (value: Value, version: UInt64) {
        let last = lock.withLock { _ -> Value? in
            lastCycle = cycle
            if WordPacking<Value>.fits {
                return hasBits.load(ordering: .acquiring) ? WordPacking<Value>.unpack(cachedBits.load(ordering: .acquiring)) : nil
            }
            return cached
        }
        guard let last else { fatalError("StateGraph: \(cycle.describe(outcome: "has no value yet to give"))") }
        GraphCycleErrors.report(cycle)
        // The state as it is: the reader's edge to this node is checked against it at its commit.
        return (last, core.state.load(ordering: .acquiring))
    }

    /// The last cycle a read of this node closed (that read got the node's last value), or `nil`.
    public var cycleError: GraphCycleError? { lock.withLock { _ in lastCycle } }
}
