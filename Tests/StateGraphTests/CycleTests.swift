import Foundation
import StateGraph
import Testing

/// Rules that read their own node, directly or through others, on one thread or across threads:
/// every read finishes (no hang) and the cycle is reported, naming its nodes.
@Suite("cycles")
struct CycleTests {
    @Test("a rule that reads its own node gets the node's last value instead of waiting for itself")
    func directSelfRead() async {
        let readsItself = Stored(name: "readsItself", wrappedValue: false)
        let late = LateNodes()
        defer { late.removeAll() }
        let a = Computed(name: "a") { _ in readsItself.wrappedValue ? late["a"].wrappedValue + 1 : 1 }
        late["a"] = a
        #expect(a.wrappedValue == 1)
        readsItself.wrappedValue = true
        let values = await finishOnThreads({ a.wrappedValue })
        #expect(values == [2], "a rule reading its own node hung")
        #expect(a.cycleError == GraphCycleError(nodes: ["a", "a"], spansThreads: false))
        #expect(a.cycleError?.description.contains("cycle a -> a") == true)
    }

    @Test("a cycle of two nodes on one thread ends at the node read again, with its last value")
    func twoNodeCycle() async {
        let cycle = TwoNodeCycle()
        defer { cycle.late.removeAll() }
        let (a, b) = (cycle.a, cycle.b)
        #expect(a.wrappedValue == 1 && b.wrappedValue == 2)
        cycle.cyclic.wrappedValue = true
        let values = await finishOnThreads({ a.wrappedValue })
        // b read a's last value (1): b = 11, a = 12.
        #expect(values == [12], "a two-node cycle hung or gave \(values ?? [])")
        #expect(b.wrappedValue == 11)
        #expect(a.cycleError == GraphCycleError(nodes: ["a", "b", "a"], spansThreads: false))
        #expect(b.cycleError == nil)
    }

    @Test("a cycle of three nodes on one thread ends at the node read again, with its last value")
    func threeNodeCycle() async {
        let cyclic = Stored(name: "cyclic", wrappedValue: false)
        let late = LateNodes()
        defer { late.removeAll() }
        let a = Computed(name: "a") { _ in cyclic.wrappedValue ? late["b"].wrappedValue + 1 : 1 }
        let b = Computed(name: "b") { _ in cyclic.wrappedValue ? late["c"].wrappedValue + 10 : 2 }
        let c = Computed(name: "c") { _ in cyclic.wrappedValue ? late["a"].wrappedValue + 100 : 3 }
        late["a"] = a
        late["b"] = b
        late["c"] = c
        #expect(a.wrappedValue == 1 && b.wrappedValue == 2 && c.wrappedValue == 3)
        cyclic.wrappedValue = true
        let values = await finishOnThreads({ a.wrappedValue })
        #expect(values == [112], "a three-node cycle hung or gave \(values ?? [])")
        #expect(b.wrappedValue == 111 && c.wrappedValue == 101)
        #expect(a.cycleError == GraphCycleError(nodes: ["a", "b", "c", "a"], spansThreads: false))
        #expect(b.cycleError == nil && c.cycleError == nil)
    }

    @Test("two threads evaluating into each other (a reads b on one, b reads a on the other) do not deadlock")
    func twoThreadCycle() async {
        let cyclic = Stored(name: "cyclic", wrappedValue: false)
        let late = LateNodes()
        defer { late.removeAll() }
        let meet = Rendezvous(parties: 2)
        // Each rule waits until both are running, so each thread holds its node when it reads the other.
        let a = Computed(name: "a") { _ in
            guard cyclic.wrappedValue else { return 1 }
            return meet.arriveAndWait() ? late["b"].wrappedValue + 1 : -1_000
        }
        let b = Computed(name: "b") { _ in
            guard cyclic.wrappedValue else { return 2 }
            return meet.arriveAndWait() ? late["a"].wrappedValue + 10 : -1_000
        }
        late["a"] = a
        late["b"] = b
        #expect(a.wrappedValue == 1 && b.wrappedValue == 2)
        cyclic.wrappedValue = true
        let values = await finishOnThreads({ a.wrappedValue }, { b.wrappedValue })
        // The thread that closes the cycle reads the other node's last value: b read a's 1 (b = 11,
        // a = 12), or a read b's 2 (a = 3, b = 13).
        #expect(values == [12, 11] || values == [3, 13], "two threads evaluating into each other hung or gave \(values ?? [])")
        // The node whose read closed the cycle names it, starting from itself.
        if values == [12, 11] {
            #expect(a.cycleError == GraphCycleError(nodes: ["a", "b", "a"], spansThreads: true))
            #expect(b.cycleError == nil)
        } else {
            #expect(b.cycleError == GraphCycleError(nodes: ["b", "a", "b"], spansThreads: true))
            #expect(a.cycleError == nil)
        }
    }

    @Test("three threads evaluating into each other (a reads b reads c reads a) do not deadlock")
    func threeThreadCycle() async throws {
        let cyclic = Stored(name: "cyclic", wrappedValue: false)
        let late = LateNodes()
        defer { late.removeAll() }
        let meet = Rendezvous(parties: 3)
        func node(_ name: String, reads next: String, plus: Int, initial: Int) -> Computed<Int> {
            Computed(name: name) { _ in
                guard cyclic.wrappedValue else { return initial }
                return meet.arriveAndWait() ? late[next].wrappedValue + plus : -1_000
            }
        }
        let a = node("a", reads: "b", plus: 1, initial: 1)
        let b = node("b", reads: "c", plus: 10, initial: 2)
        let c = node("c", reads: "a", plus: 100, initial: 3)
        late["a"] = a
        late["b"] = b
        late["c"] = c
        #expect(a.wrappedValue == 1 && b.wrappedValue == 2 && c.wrappedValue == 3)
        cyclic.wrappedValue = true
        let values = await finishOnThreads({ a.wrappedValue }, { b.wrappedValue }, { c.wrappedValue })
        // Whichever read closed the cycle got that node's last value.
        let possible: [[Int]: (cut: Computed<Int>, nodes: [String])] = [
            [112, 111, 101]: (a, ["a", "b", "c", "a"]),
            [3, 113, 103]: (b, ["b", "c", "a", "b"]),
            [14, 13, 114]: (c, ["c", "a", "b", "c"]),
        ]
        let outcome = try #require(values.flatMap { possible[$0] },
                                   "three threads evaluating into each other hung or gave \(values ?? [])")
        #expect(outcome.cut.cycleError == GraphCycleError(nodes: outcome.nodes, spansThreads: true))
        #expect([a, b, c].filter { $0.cycleError != nil }.count == 1)
    }

    @Test("threads waiting for one node's evaluation without a cycle are not mistaken for one")
    func contentionIsNotACycle() async {
        let base = Stored(name: "base", wrappedValue: 1)
        let meet = Rendezvous(parties: 2)
        let shared = Computed(name: "shared") { _ -> Int in
            usleep(20_000)   // long enough that the other thread waits for this evaluation
            return base.wrappedValue * 1_000
        }
        let a = Computed(name: "a") { _ in meet.arriveAndWait() ? shared.wrappedValue + 1 : -1 }
        let b = Computed(name: "b") { _ in meet.arriveAndWait() ? shared.wrappedValue + 2 : -1 }
        let values = await finishOnThreads({ a.wrappedValue }, { b.wrappedValue })
        #expect(values == [1_001, 1_002])
        #expect(shared.evaluationCount == 1)
        #expect(a.cycleError == nil && b.cycleError == nil && shared.cycleError == nil)
    }

    @Test("a cycle through a node that has no value yet stops the program, naming the cycle, instead of hanging")
    func cycleWithoutValueStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let late = LateNodes()
        defer { late.removeAll() }
            let loop = Computed(name: "loop") { _ in late["loop"].wrappedValue + 1 }
            late["loop"] = loop
            _ = loop.wrappedValue
        }
        let errors = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(errors.contains("cycle loop -> loop: a rule reads loop while loop is being computed; loop has no value yet"),
                "standard error: \(errors)")
    }

    @Test("a ring of nodes read from as many threads while its input changes never hangs")
    func ringUnderContention() async {
        let round = Stored(name: "round", wrappedValue: 0)
        // Each node needs a value before the ring closes on it: each is read once before `closed`.
        let closed = Stored(name: "closed", wrappedValue: false)
        let late = LateNodes()
        defer { late.removeAll() }
        let names = ["r0", "r1", "r2"]
        for (index, name) in names.enumerated() {
            let next = names[(index + 1) % names.count]
            late[name] = Computed(name: name) { _ in
                closed.wrappedValue ? round.wrappedValue &+ late[next].wrappedValue &+ 1 : 0
            }
        }
        for name in names { _ = late[name].wrappedValue }
        closed.wrappedValue = true
        let finished = await finishOnThreads(
            { for step in 1...300 { round.wrappedValue = step } ; return 0 },
            { for _ in 0..<300 { _ = late["r0"].wrappedValue } ; return 0 },
            { for _ in 0..<300 { _ = late["r1"].wrappedValue } ; return 0 },
            { for _ in 0..<300 { _ = late["r2"].wrappedValue } ; return 0 })
        #expect(finished != nil, "reading a ring from several threads hung")
        #expect(names.contains { late[$0].cycleError != nil })
    }

    @Test("nodes without a cycle, read from many threads while their input changes, never report one")
    func noFalseCycles() async {
        let base = Stored(name: "base", wrappedValue: 1)
        // Three layers of four; each node reads every node of the layer below, in an order of its own.
        var layers: [[Computed<Int>]] = [(0..<4).map { i in Computed(name: "l0.\(i)") { _ in base.wrappedValue + i } }]
        for level in 1..<3 {
            let below = layers[level - 1]
            layers.append((0..<4).map { i in
                Computed(name: "l\(level).\(i)") { _ in
                    (0..<4).reduce(0) { sum, k in sum &+ below[(i + k) % 4].wrappedValue }
                }
            })
        }
        let top = layers[2]
        let all = layers.flatMap { $0 }
        let finished = await finishOnThreads(
            { for step in 1...500 { base.wrappedValue = step } ; return 0 },
            { for step in 0..<500 { _ = top[step % 4].wrappedValue } ; return 0 },
            { for step in 0..<500 { _ = top[(step + 1) % 4].wrappedValue } ; return 0 },
            { for step in 0..<500 { _ = top[(step + 2) % 4].wrappedValue } ; return 0 })
        #expect(finished != nil, "reading a layered graph from several threads hung")
        #expect(all.allSatisfy { $0.cycleError == nil }, "a cycle was reported where there is none")
        // Each node of layer 1 sums layer 0 (base*4 + 6); each of layer 2 sums four of those.
        #expect(top.allSatisfy { $0.wrappedValue == 4 * (base.wrappedValue * 4 + 6) })
    }
}
