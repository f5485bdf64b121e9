import Dispatch
import Foundation
import StateGraph
import Testing

/// Nodes used from many threads at once.
@Suite("concurrency")
struct ConcurrencyTests {
    @Test("readers of the diamond never see a mix of old and new values while writers change it")
    func diamondUnderConcurrentWrites() {
        let model = DiamondModel()
        let mixes = Recorded<String>()
        let reads = Counter()
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            for step in 1...2_000 {
                if worker < 2 {
                    model.base = step * 2 + worker
                } else {
                    let sum = model.sum
                    let parts = sum.split(separator: "+").compactMap { Int($0) }
                    if parts.count != 2 || parts[0] * 10 != parts[1] { mixes.append(sum) }
                    reads.bump()
                }
            }
        }
        #expect(mixes.all.isEmpty, "inconsistent values: \(mixes.all.prefix(5))")
        #expect(reads.count == 8_000)
        let base = model.base
        #expect(model.sum == "\(base * 10)+\(base * 100)")
    }

    @Test("word-sized computed nodes, read without the lock, never show a mix of old and new values")
    func lockFreeReadsUnderConcurrentWrites() {
        let base = Stored(name: "base", wrappedValue: 1)
        let left = Computed(name: "left") { _ in base.wrappedValue * 10 }
        let right = Computed(name: "right") { _ in base.wrappedValue * 100 }
        // Zero unless it saw a left and a right computed from different bases.
        let gap = Computed(name: "gap") { _ in left.wrappedValue * 10 - right.wrappedValue }
        let mixes = Counter()
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            for step in 1...3_000 {
                if worker < 2 {
                    base.wrappedValue = step * 2 + worker
                } else {
                    if gap.wrappedValue != 0 { mixes.bump() }
                    if left.wrappedValue % 10 != 0 || right.wrappedValue % 100 != 0 { mixes.bump() }
                }
            }
        }
        #expect(mixes.count == 0)
        #expect(gap.wrappedValue == 0)
        #expect(left.wrappedValue == base.wrappedValue * 10)
    }

    @Test("a computed total over nodes written from many threads ends at the right value")
    func totalOverManyWriters() {
        let nodes = (0..<8).map { Stored(name: "n\($0)", wrappedValue: 0) }
        let total = Computed { _ in nodes.reduce(0) { $0 + $1.wrappedValue } }
        DispatchQueue.concurrentPerform(iterations: nodes.count) { index in
            for value in 1...500 {
                nodes[index].wrappedValue = value
                _ = total.wrappedValue
            }
        }
        #expect(total.wrappedValue == 8 * 500)
    }

    @Test("subscriptions made and cancelled on many threads while the node changes")
    func subscriptionsChurn() {
        let source = Stored(wrappedValue: 0)
        let doubled = Computed { _ in source.wrappedValue * 2 }
        let odd = Recorded<Int>()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for step in 0..<300 {
                if worker == 0 {
                    source.wrappedValue = step
                } else {
                    let subscription = GraphSubscription({ doubled.wrappedValue }, onChange: { value in
                        if value % 2 != 0 { odd.append(value) }
                    })
                    subscription.cancel()
                }
            }
        }
        #expect(odd.all.isEmpty)
        #expect(doubled.wrappedValue == 598)
    }

    @Test("a dependency written by another thread while the rule runs makes the rule run again")
    func changeDuringEvaluation() {
        let a = Stored(name: "a", wrappedValue: 1)
        let b = Computed(name: "b") { _ in a.wrappedValue * 10 }
        let interfered = Counter()
        let pair = Computed(name: "pair") { _ -> [Int] in
            let first = a.wrappedValue
            if interfered.count == 0 {
                interfered.bump()
                // Another thread changes `a` between this rule's two reads, and finishes before it goes on.
                let done = DispatchSemaphore(value: 0)
                Thread.detachNewThread {
                    a.wrappedValue = 2
                    done.signal()
                }
                done.wait()
            }
            return [first, b.wrappedValue]
        }
        let value = pair.wrappedValue
        #expect(value == [2, 20], "the rule's result mixed old and new values: \(value)")
        #expect(pair.evaluationCount == 2)
    }
}
