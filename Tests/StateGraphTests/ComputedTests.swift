import Foundation
import StateGraph
import Testing

/// Computed nodes: lazy, cached, dynamic dependencies, diamonds, chains.
@Suite("computed nodes")
struct ComputedTests {
    @Test("a computed node runs its rule only when read, and caches the result")
    func lazyAndCached() {
        let source = Stored(name: "source", wrappedValue: 2)
        let doubled = Computed(name: "doubled") { _ in source.wrappedValue * 2 }
        #expect(doubled.evaluationCount == 0)
        source.wrappedValue = 3
        #expect(doubled.evaluationCount == 0, "a write must not compute anything")
        #expect(doubled.wrappedValue == 6)
        #expect(doubled.wrappedValue == 6)
        #expect(doubled.evaluationCount == 1)
        source.wrappedValue = 4
        source.wrappedValue = 5
        #expect(doubled.evaluationCount == 1, "writes only mark the node stale")
        #expect(doubled.wrappedValue == 10)
        #expect(doubled.evaluationCount == 2)
    }

    @Test("setting an Equatable stored value to its current value marks nothing stale")
    func equalWriteIsNoChange() {
        let source = Stored(name: "source", wrappedValue: "a")
        let upper = Computed { _ in source.wrappedValue.uppercased() }
        #expect(upper.wrappedValue == "A")
        source.wrappedValue = "a"
        #expect(upper.wrappedValue == "A")
        #expect(upper.evaluationCount == 1)
    }

    @Test("the diamond recomputes its bottom once per change, from new values only")
    func diamond() {
        let model = DiamondModel()
        #expect(model.sum == "10+100")
        #expect(model.$sum.evaluationCount == 1)
        for base in 2...20 {
            model.base = base
            #expect(model.sum == "\(base * 10)+\(base * 100)")
            #expect(model.$sum.evaluationCount == base, "sum ran \(model.$sum.evaluationCount) times after \(base - 1) changes")
            #expect(model.$left.evaluationCount == base)
            #expect(model.$right.evaluationCount == base)
        }
    }

    @Test("an observer of the diamond's bottom runs once per change and sees only consistent values")
    func diamondObserver() {
        let model = DiamondModel()
        let seen = Recorded<String>()
        let subscription = GraphSubscription({ model.sum }, onChange: { seen.append($0) })
        for base in 2...5 { model.base = base }
        #expect(seen.all == ["20+200", "30+300", "40+400", "50+500"])
        subscription.cancel()
        model.base = 6
        #expect(seen.all.count == 4, "a cancelled subscription kept running")
    }

    @Test("a branch that stops reading a node stops depending on it")
    func dynamicDependencies() {
        let model = DiamondModel()
        #expect(model.branch == 10)
        model.other = 7
        #expect(model.branch == 10)
        #expect(model.$branch.evaluationCount == 1, "other was not read, so changing it must not recompute")
        model.useLeft = false
        #expect(model.branch == 7)
        #expect(model.$branch.evaluationCount == 2)
        model.base = 5
        #expect(model.branch == 7)
        #expect(model.$branch.evaluationCount == 2, "left is no longer read, so base must not recompute branch")
        model.other = 8
        #expect(model.branch == 8)
        #expect(model.$branch.evaluationCount == 3)
    }

    @Test("withoutTracking reads without creating a dependency")
    func withoutTracking() {
        let tracked = Stored(wrappedValue: 1)
        let untracked = Stored(wrappedValue: 10)
        let total = Computed { context in
            tracked.wrappedValue + context.withoutTracking { untracked.wrappedValue }
        }
        #expect(total.wrappedValue == 11)
        untracked.wrappedValue = 20
        #expect(total.wrappedValue == 11)
        tracked.wrappedValue = 2
        #expect(total.wrappedValue == 22)
    }

    @Test("a chain of 300 computed nodes gives the right value and computes each node once per change")
    func chain() {
        let head = Stored(wrappedValue: 0)
        var nodes: [Computed<Int>] = [Computed { _ in head.wrappedValue + 1 }]
        for _ in 1..<300 {
            let previous = nodes[nodes.count - 1]
            nodes.append(Computed { _ in previous.wrappedValue + 1 })
        }
        let tail = nodes[nodes.count - 1]
        #expect(tail.wrappedValue == 300)
        head.wrappedValue = 1000
        #expect(tail.wrappedValue == 1300)
        #expect(nodes.allSatisfy { $0.evaluationCount == 2 })
    }

    @Test("a non-Equatable stored value always counts as changed")
    func nonEquatable() {
        struct Box { var value: Int }
        let box = Stored(wrappedValue: Box(value: 1))
        let read = Computed { _ in box.wrappedValue.value }
        #expect(read.wrappedValue == 1)
        box.wrappedValue = Box(value: 1)
        #expect(read.wrappedValue == 1)
        #expect(read.evaluationCount == 2)
    }

    @Test("a model whose computed nodes read its stored nodes is freed when released")
    func modelIsFreed() {
        weak var weakModel: DiamondModel?
        weak var weakSum: Computed<String>?
        do {
            let model = DiamondModel()
            weakModel = model
            weakSum = model.$sum
            #expect(model.sum == "10+100")
            model.base = 2
            #expect(model.branch == 20)
        }
        #expect(weakModel == nil, "the model leaked")
        #expect(weakSum == nil, "a computed node leaked")
    }

    @Test("a computed node that is released leaves its dependencies")
    func releasedComputed() {
        let source = Stored(wrappedValue: 1)
        weak var weakComputed: Computed<Int>?
        do {
            let computed = Computed { _ in source.wrappedValue }
            weakComputed = computed
            #expect(computed.wrappedValue == 1)
        }
        #expect(weakComputed == nil, "the stored node kept its dependent alive")
        source.wrappedValue = 2
    }
}

/// Models whose initializers assign graph properties.
@Suite("initialized models")
struct InitializedModelTests {
    @Test("an initializer can assign stored graph properties; optionals start as nil")
    func initializerAssigns() {
        let model = InitializedModel(name: "Ada", nickname: nil)
        #expect(model.name == "Ada")
        #expect(model.nickname == nil)
        #expect(model.greeting == "Hello, Ada")
        model.nickname = "Countess"
        #expect(model.greeting == "Hello, Countess")
        model.visit()
        model.visit()
        #expect(model.visits == 2)
    }
}
