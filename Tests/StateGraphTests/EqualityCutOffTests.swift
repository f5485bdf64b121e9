import Foundation
import StateGraph
import Synchronization
import Testing
import TestSupport

/// The equality cut-off: a computed node made with a descriptor whose new value equals its last one
/// (by the descriptor's `isEqual`) is no change, so the nodes computed from it keep their values
/// without running their rules.
///
/// Invariant under test: every read gives what the rules would give computed afresh from the stored
/// values (the cut-off never serves a stale value), and a rule runs only when something it read
/// changed value.
@Suite("equality cut-off")
struct EqualityCutOffTests {
    @Test("a descriptor's node that computes an equal value keeps its dependents from running their rules")
    func equalValueStopsDependents() {
        let count = Stored(name: "count", wrappedValue: 1)
        let parity = Computed(name: "parity", descriptor: .any { @Sendable _ in count.wrappedValue % 2 })
        let label = Computed(name: "label") { _ in parity.wrappedValue == 0 ? "even" : "odd" }
        #expect(label.wrappedValue == "odd")
        count.wrappedValue = 3
        #expect(label.wrappedValue == "odd")
        #expect(parity.evaluationCount == 2)
        #expect(label.evaluationCount == 1)
        count.wrappedValue = 4
        #expect(label.wrappedValue == "even")
        #expect(label.evaluationCount == 2)
    }

    @Test("the cut-off passes through a node that did not run: the whole chain below keeps its values")
    func cutOffIsTransitive() {
        let count = Stored(name: "count", wrappedValue: 1)
        let parity = Computed(name: "parity", descriptor: .any { @Sendable _ in count.wrappedValue % 2 })
        // Not Equatable: it cannot cut off by itself, but it does not run when its input held.
        let boxed = Computed<[Any]>(name: "boxed", descriptor: AnyComputedDescriptor(compute: { _ in [parity.wrappedValue] },
                                                                                      isEqual: { _, _ in false }))
        let tail = Computed(name: "tail") { _ in boxed.wrappedValue.count * 10 + parity.wrappedValue }
        #expect(tail.wrappedValue == 11)
        for value in [3, 5, 7] {
            count.wrappedValue = value
            #expect(tail.wrappedValue == 11)
        }
        #expect((boxed.evaluationCount, tail.evaluationCount) == (1, 1))
        count.wrappedValue = 8
        #expect(tail.wrappedValue == 10)
        #expect((boxed.evaluationCount, tail.evaluationCount) == (2, 2))
    }

    @Test("a node that is not Equatable, or a descriptor that says unequal, always counts as changed")
    func nonEquatableAlwaysChanges() {
        let count = Stored(name: "count", wrappedValue: 1)
        let always = Computed(name: "always", descriptor: AnyComputedDescriptor(compute: { _ in count.wrappedValue % 2 },
                                                                                 isEqual: { _, _ in false }))
        // `@Sendable` spelled out: Swift 6.3 does not infer it for a closure given to a static member found
        // through `Self ==` (swift-state-graph's declaration has the same limit).
        let viaAny = Computed(name: "viaAny", descriptor: .any { @Sendable _ in count.wrappedValue % 2 })
        let fromAny = Computed(name: "fromAny") { _ in viaAny.wrappedValue + 1 }
        let custom = Computed(name: "custom", descriptor: AnyComputedDescriptor(compute: { _ in count.wrappedValue },
                                                                                 isEqual: { abs($0) == abs($1) }))
        let fromAlways = Computed(name: "fromAlways") { _ in always.wrappedValue + 1 }
        let fromCustom = Computed(name: "fromCustom") { _ in abs(custom.wrappedValue) }
        #expect((fromAlways.wrappedValue, fromCustom.wrappedValue, fromAny.wrappedValue) == (2, 1, 2))
        count.wrappedValue = -1
        #expect((fromAlways.wrappedValue, fromCustom.wrappedValue, fromAny.wrappedValue) == (0, 1, 0))
        count.wrappedValue = -3
        #expect((fromAlways.wrappedValue, fromCustom.wrappedValue, fromAny.wrappedValue) == (0, 3, 0))
        // A descriptor whose isEqual says unequal never cuts off; `.any` over an Equatable value does.
        #expect(fromAlways.evaluationCount == 3)
        #expect(fromAny.evaluationCount == 2)
        // -1 is equal to 1 by the custom comparison: no change; -3 is a change.
        #expect(fromCustom.evaluationCount == 2)
        #expect(custom.wrappedValue == -3)
    }

    @Test("a plain node is no cut-off: its equal value is a change, so its dependents run")
    func plainNodeIsNotRefreshedByDependents() {
        let count = Stored(name: "count", wrappedValue: 1)
        let parity = Computed(name: "parity") { _ in count.wrappedValue % 2 }
        let label = Computed(name: "label") { _ in parity.wrappedValue == 0 ? "even" : "odd" }
        #expect(label.wrappedValue == "odd")
        count.wrappedValue = 3
        #expect(label.wrappedValue == "odd")
        #expect(label.evaluationCount == 2)
        count.wrappedValue = 5
        #expect(parity.wrappedValue == 1, "read first, parity computes its equal value")
        #expect(label.wrappedValue == "odd")
        #expect(label.evaluationCount == 3)
    }

    @Test("a node reading an unchanged computed node and a changed stored one runs its rule")
    func changedStoredDependencyStillRuns() {
        let a = Stored(name: "a", wrappedValue: 1)
        let b = Stored(name: "b", wrappedValue: 10)
        let parity = Computed(name: "parity", descriptor: .any { @Sendable _ in a.wrappedValue % 2 })
        let sum = Computed(name: "sum") { _ in parity.wrappedValue + b.wrappedValue }
        #expect(sum.wrappedValue == 11)
        withGraphBatch {
            a.wrappedValue = 3
            b.wrappedValue = 20
        }
        #expect(sum.wrappedValue == 21)
        #expect(sum.evaluationCount == 2)
    }

    @Test("observers still hear of a change that the cut-off stops below")
    func observersStillNotified() {
        let count = Stored(name: "count", wrappedValue: 1)
        let parity = Computed(name: "parity", descriptor: .any { @Sendable _ in count.wrappedValue % 2 })
        let label = Computed(name: "label") { _ in "\(parity.wrappedValue)" }
        let fired = Counter()
        withGraphObservationTracking { _ = label.wrappedValue } onChange: { fired.bump() }
        count.wrappedValue = 3
        #expect(fired.count == 1)
        #expect(label.wrappedValue == "1")
        #expect(label.evaluationCount == 1)
    }

    /// A random graph of computed nodes, some Equatable with values that often repeat (small moduli),
    /// some not, some reading conditionally; random writes and reads, each read compared with the value
    /// computed afresh from the stored values.
    @Test("a random graph under random writes always reads what a fresh computation gives")
    func randomGraphMatchesFreshComputation() {
        let seed = TestSeed.make()
        print("EqualityCutOffTests.randomGraph seed: \(seed)")
        var random = SeededGenerator(seed: seed)
        for _ in 0..<(20 * TestSeed.scale) {
            let graph = RandomGraph(using: &random)
            for _ in 0..<300 {
                if random.chance(0.4) {
                    let index = random.int(in: 0...(graph.stored.count - 1))
                    graph.stored[index].wrappedValue = random.int(in: 0...5)
                } else {
                    let index = random.int(in: 0...(graph.computed.count - 1))
                    let read = graph.computed[index].wrappedValue
                    let expected = graph.expected(index)
                    #expect(read == expected, "seed \(seed): node c\(index) read \(read), expected \(expected)")
                    if read != expected { return }
                }
            }
        }
    }

    @Test("threads writing and reading the same random graph end with every node as a fresh computation gives")
    func randomGraphUnderThreads() async {
        let seed = TestSeed.make()
        print("EqualityCutOffTests.randomGraphUnderThreads seed: \(seed)")
        var random = SeededGenerator(seed: seed)
        for round in 0..<(6 * TestSeed.scale) {
            let graph = RandomGraph(using: &random)
            let seeds = (0..<3).map { _ in random.next() }
            let results = await finishOnThreads(
                { graph.hammer(seed: seeds[0], writes: true) },
                { graph.hammer(seed: seeds[1], writes: true) },
                { graph.hammer(seed: seeds[2], writes: false) })
            #expect(results != nil, "seed \(seed) round \(round): a thread did not finish")
            for index in graph.computed.indices {
                let read = graph.computed[index].wrappedValue
                let expected = graph.expected(index)
                #expect(read == expected, "seed \(seed) round \(round): node c\(index) read \(read), expected \(expected)")
            }
        }
    }
}

/// A random acyclic graph: stored nodes, then computed nodes each reading earlier nodes.
private final class RandomGraph: Sendable {
    struct Shape: Sendable {
        let inputs: [Int]          // indices into stored + computed (earlier nodes only)
        let modulus: Int
        let conditional: Bool      // reads inputs[1] only when inputs[0]'s value is even
        let kind: Int              // 0: plain, 1: descriptor with ==, 2: descriptor never equal
    }

    let stored: [Stored<Int>]
    let computed: [Computed<Int>]
    let shapes: [Shape]

    init(using random: inout SeededGenerator) {
        let stored = (0..<random.int(in: 2...4)).map { Stored(name: "s\($0)", wrappedValue: $0) }
        var shapes: [Shape] = []
        var computed: [Computed<Int>] = []
        let count = random.int(in: 4...12)
        for index in 0..<count {
            let available = stored.count + index
            let inputs = (0..<random.int(in: 1...3)).map { _ in random.int(in: 0...(available - 1)) }
            let shape = Shape(inputs: inputs, modulus: random.int(in: 2...4), conditional: inputs.count > 1 && random.chance(0.4),
                              kind: random.int(in: 0...2))
            shapes.append(shape)
            let nodes = computed
            let read: @Sendable (Int) -> Int = { input in
                input < stored.count ? stored[input].wrappedValue : nodes[input - stored.count].wrappedValue
            }
            let rule: @Sendable (inout Computed<Int>.Context) -> Int = { _ in RandomGraph.evaluate(shape, read) }
            switch shape.kind {
            case 0: computed.append(Computed(name: "c\(index)", rule))
            case 1: computed.append(Computed(name: "c\(index)", descriptor: AnyComputedDescriptor(compute: rule)))
            default: computed.append(Computed(name: "c\(index)", descriptor: AnyComputedDescriptor(compute: rule, isEqual: { _, _ in false })))
            }
        }
        self.stored = stored
        self.computed = computed
        self.shapes = shapes
    }

    static func evaluate(_ shape: Shape, _ read: (Int) -> Int) -> Int {
        let first = read(shape.inputs[0])
        if shape.conditional {
            return (first % 2 == 0 ? read(shape.inputs[1]) : first + 1) % shape.modulus
        }
        return (shape.inputs.dropFirst().reduce(first) { $0 + read($1) }) % shape.modulus
    }

    /// Node `index`'s value computed afresh from the stored values (no caches).
    func expected(_ index: Int) -> Int {
        Self.evaluate(shapes[index]) { input in
            input < stored.count ? stored[input].wrappedValue : expected(input - stored.count)
        }
    }

    func hammer(seed: UInt64, writes: Bool) -> Bool {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<2_000 {
            if writes && random.chance(0.5) {
                stored[random.int(in: 0...(stored.count - 1))].wrappedValue = random.int(in: 0...5)
            } else {
                _ = computed[random.int(in: 0...(computed.count - 1))].wrappedValue
            }
        }
        return true
    }
}
