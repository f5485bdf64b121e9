@testable import StateGraph
import Testing

/// The nodes of a dependency cycle hold each other's cores (each read is an edge); they must still be
/// freed once the program lets go of them (found by ci/sanitize's LeakSanitizer).
@Suite("cycle lifetime")
struct CycleLifetimeTests {
    @Test("the cores of a two-node cycle are freed with their nodes")
    func twoNodeCycleIsFreed() {
        weak var coreA: ComputedCore?
        weak var coreB: ComputedCore?
        do {
            let cycle = TwoNodeCycle()
            #expect(cycle.a.wrappedValue == 1 && cycle.b.wrappedValue == 2)
            cycle.cyclic.wrappedValue = true
            #expect(cycle.a.wrappedValue == 12)
            #expect(cycle.a.cycleError != nil, "the cycle this test is about did not form")
            coreA = cycle.a.core
            coreB = cycle.b.core
            cycle.late.removeAll()
        }
        #expect(coreA == nil, "a's core outlived its node")
        #expect(coreB == nil, "b's core outlived its node")
    }

    @Test("a node read inside its own rule does not keep its core alive")
    func selfReadIsFreed() {
        weak var core: ComputedCore?
        do {
            let readsItself = Stored(name: "readsItself", wrappedValue: false)
            let late = LateNodes()
            let a = Computed(name: "a") { _ in readsItself.wrappedValue ? late["a"].wrappedValue + 1 : 1 }
            late["a"] = a
            #expect(a.wrappedValue == 1)
            readsItself.wrappedValue = true
            #expect(a.wrappedValue == 2)
            core = a.core
            late.removeAll()
        }
        #expect(core == nil)
    }
}
