// What a computed node does when a read would wait for an evaluation that cannot end: its own, on
// this thread, or one on another thread that is waiting for this thread (see `GraphCycleError`).

extension Computed {
    /// `evaluate()` when another thread is evaluating this node: waits for it, unless that thread is
    /// (through others, perhaps) waiting for an evaluation this thread is running.
    @usableFromInline
    func evaluateAfterWaiting(on thread: EvaluationThread) -> Value {
        // A thread running no rule holds no evaluation anyone could wait for: it cannot close a cycle.
        if thread.frames.isEmpty {
            return evaluationLock.withLock { _ in evaluateHoldingLock(on: thread, waited: false) }
        }
        if let cycle = GraphWaits.startWaiting(thread, for: self) { return readInCycle(cycle) }
        return evaluationLock.withLock { _ in evaluateHoldingLock(on: thread, waited: true) }
    }

    /// A read that closes `cycle`: reports it and returns the node's last value. A rule that reads
    /// its own node before the node ever had a value is a programming error with no value to give
    /// (not bad input): a precondition failure naming the cycle, in debug and release builds alike,
    /// rather than a deadlock.
    @usableFromInline
    func readInCycle(_ cycle: GraphCycleError) -> Value {
        let last = lock.withLock { _ -> Value? in
            lastCycle = cycle
            return cached
        }
        guard let last else { preconditionFailure("StateGraph: \(cycle.describe(outcome: "has no value yet to give"))") }
        GraphCycleErrors.report(cycle)
        return last
    }

    /// The last cycle a read of this node closed (that read got the node's last value), or `nil`.
    public var cycleError: GraphCycleError? { lock.withLock { _ in lastCycle } }
}

extension Computed: EvaluatingNode {
    @usableFromInline
    var evaluatingThread: UInt { evaluator.load(ordering: .acquiring) }
}
