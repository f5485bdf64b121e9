// Running a computed node's rule and committing its result.

import Synchronization

extension Computed {
    /// Computes the value, or takes it from the evaluation another thread is finishing. Returns the
    /// value and the fresh state it belongs to; a read that would wait for itself (a cycle) gets the
    /// last value instead (see `GraphCycleError`).
    @inlinable
    func evaluate(on thread: EvaluationThread) -> (value: Value, version: UInt64) {
        var seen = core.state.load(ordering: .acquiring)
        while true {
            if seen & ComputedCore.fresh != 0 {
                if let value = freshValue(seen) { return (value, seen) }
                seen = core.state.load(ordering: .acquiring)
                continue
            }
            if seen & ComputedCore.evaluating != 0 { return evaluateAfterWaiting(on: thread) }
            // The evaluation lock: bit 1 of a stale state.
            let (exchanged, current) = core.state.compareExchange(expected: seen, desired: seen | ComputedCore.evaluating,
                                                                  ordering: .acquiringAndReleasing)
            if exchanged { return evaluateHoldingLock(on: thread, from: seen | ComputedCore.evaluating, waited: false) }
            seen = current
        }
    }

    /// Runs the rule, this thread holding the evaluation (bit 1 of `start`), until a run commits with
    /// no dependency changing under it.
    @inlinable
    func evaluateHoldingLock(on thread: EvaluationThread, from start: UInt64, waited: Bool) -> (value: Value, version: UInt64) {
        let core = self.core
        // Before `stopWaiting`, so a thread following the chain of waits sees this thread has the node.
        core.evaluator.store(thread.id, ordering: .releasing)
        if waited { GraphWaits.stopWaiting(thread) }
        thread.push(core)
        let outer = thread.reader
        defer {
            thread.reader = outer
            thread.pop()
        }
        var start = start
        while true {
            // The equality cut-off: nothing the last run read has changed (a computed dependency may
            // have computed an equal value), so its result stands.
            if core.cutOffUpstream.load(ordering: .relaxed), core.readsStillHold(on: thread), let kept = keptValue() {
                core.evaluator.store(0, ordering: .releasing)
                if core.finishEvaluation(from: start) { return (kept, (start & ~(ComputedCore.evaluating | ComputedCore.waited)) | ComputedCore.fresh) }
                core.evaluator.store(thread.id, ordering: .releasing)
                start = core.state.load(ordering: .acquiring)
                continue
            }
            core.cacheMatchesReads = false
            core.evaluatedAt = core.graph._withUnsafeGuaranteedRef { $0.tick.load(ordering: .acquiring) }
            core.restartReads()
            thread.reader = .evaluation(Unmanaged.passUnretained(core))
            var context = Context()
            let value = rule(&context)
            thread.reader = outer
            core.evaluations.store(core.evaluations.load(ordering: .relaxed) &+ 1, ordering: .releasing)
            // Edges change only when the reads did; a node newly read that changed since means again.
            if core.readsMatchDependencies || core.applyEdges() {
                // Cleared first: once the commit lets go of the node, another thread may take it.
                core.evaluator.store(0, ordering: .releasing)
                if commit(value, from: start) { return (value, (start & ~(ComputedCore.evaluating | ComputedCore.waited)) | ComputedCore.fresh) }
                core.evaluator.store(thread.id, ordering: .releasing)
            }
            // Invalidated meanwhile (the state keeps bit 1): run again from the new generation.
            start = core.state.load(ordering: .acquiring)
        }
    }

    /// The cached value, read by the thread holding the evaluation (which alone changes it).
    @inlinable
    func keptValue() -> Value? {
        if WordPacking<Value>.fits {
            return hasBits.load(ordering: .acquiring) ? WordPacking<Value>.unpack(cachedBits.load(ordering: .relaxed)) : nil
        }
        return cached
    }

    /// Caches `value` and turns the state fresh, unless an invalidation moved it from `start`
    /// meanwhile. Returns whether it committed.
    @inlinable
    func commit(_ value: Value, from start: UInt64) -> Bool {
        if WordPacking<Value>.fits {
            let hadValue = hasBits.load(ordering: .relaxed)
            // Stamped before the value turns fresh, so a dependent that finds it fresh sees the stamp.
            if !hadValue || isEqual.map({ !$0(WordPacking<Value>.unpack(cachedBits.load(ordering: .relaxed)), value) }) ?? true {
                core.stampChange()
            }
            // While the state is stale no reader takes the bits; they are published before it turns fresh.
            cachedBits.store(WordPacking<Value>.pack(value), ordering: .releasing)
            if !hadValue { hasBits.store(true, ordering: .releasing) }
            core.cacheMatchesReads = true
            return core.finishEvaluation(from: start)
        }
        // Only this thread (holding the evaluation) changes `cached`, so it reads it without the lock.
        if cached == nil || isEqual.map({ !$0(cached!, value) }) ?? true { core.stampChange() }
        core.cacheMatchesReads = true
        var replaced: Value? = value
        let committed = lock.withLock { _ -> Bool in
            swap(&cached, &replaced)
            return core.finishEvaluation(from: start)
        }
        // The old value is released here, after the lock: its `deinit` may do anything.
        withExtendedLifetime(replaced) {}
        return committed
    }
}
