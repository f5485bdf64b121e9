import Dispatch
import Foundation
import StateGraph
import Testing

/// What the non-generic node core must keep true: edges that follow nodes made inside rules, and
/// word-sized stored values read without a lock.
@Suite("node core")
struct NodeCoreTests {
    @Test("a node made and read inside a rule keeps its reader up to date after the rule drops it")
    func nodeMadeInsideARule() {
        let source = Stored(name: "source", wrappedValue: 1)
        // The inner node is released as soon as the rule returns; its reader still depends on it.
        let outer = Computed(name: "outer") { _ in
            Computed(name: "inner") { _ in source.wrappedValue * 10 }.wrappedValue + 1
        }
        #expect(outer.wrappedValue == 11)
        for value in 2...5 {
            source.wrappedValue = value
            #expect(outer.wrappedValue == value * 10 + 1)
        }
        #expect(outer.evaluationCount == 5)
    }

    @Test("a rule that reads a word-sized stored node and a node computed from it never sees them disagree")
    func lockFreeStoredReadsUnderConcurrentWrites() {
        let base = Stored(name: "base", wrappedValue: 0)
        let tenfold = Computed(name: "tenfold") { _ in base.wrappedValue * 10 }
        // Zero unless the rule saw `base` newer (or older) than the `tenfold` it read.
        let gap = Computed(name: "gap") { _ in tenfold.wrappedValue - base.wrappedValue * 10 }
        let mixes = Counter()
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            for step in 1...3_000 {
                if worker < 2 {
                    base.wrappedValue = step * 2 + worker
                } else if gap.wrappedValue != 0 {
                    mixes.bump()
                }
            }
        }
        #expect(mixes.count == 0)
        #expect(gap.wrappedValue == 0)
        #expect(tenfold.wrappedValue == base.wrappedValue * 10)
    }

    @Test("a rule whose reads change from run to run keeps exactly the edges of its last run")
    func edgesFollowTheReads() {
        let nodes = (0..<40).map { Stored(name: "n\($0)", wrappedValue: $0) }
        let count = Stored(name: "count", wrappedValue: 3)
        // Reads the first `count` nodes: more than a short list's linear search handles, then fewer.
        let sum = Computed(name: "sum") { _ in nodes.prefix(count.wrappedValue).reduce(0) { $0 + $1.wrappedValue } }
        for size in [3, 30, 39, 5, 1] {
            count.wrappedValue = size
            #expect(sum.wrappedValue == (0..<size).reduce(0, +))
            let before = sum.evaluationCount
            nodes[size].wrappedValue += 100       // not read: must not recompute
            #expect(sum.wrappedValue == (0..<size).reduce(0, +))
            #expect(sum.evaluationCount == before, "a node no longer read still marked the rule stale")
            nodes[size].wrappedValue -= 100
            nodes[size - 1].wrappedValue += 1     // read: must recompute
            #expect(sum.wrappedValue == (0..<size).reduce(0, +) + 1)
            nodes[size - 1].wrappedValue -= 1
        }
    }
}
