import StateGraph
import Testing

/// A rule reads the process's computed environment; it is no dependency.
@Suite("computed environment")
struct ComputedEnvironmentTests {
    final class Catalog: ComputedEnvironmentKey, Sendable {
        typealias Value = Catalog
        let prices: [String: Int]
        init(prices: [String: Int]) { self.prices = prices }
    }

    @Test("context.environment reads what withLock set; changing it invalidates nothing")
    func environment() {
        // A key of this test's own: other tests running at once never read it.
        StateGraphGlobal.computedEnvironmentValues.withLock { $0.testCatalog = Catalog(prices: ["tea": 3]) }
        let quantity = Stored(name: "quantity", wrappedValue: 2)
        let total = Computed { context in quantity.wrappedValue * (context.environment.testCatalog.prices["tea"] ?? 0) }
        #expect(total.wrappedValue == 6)
        StateGraphGlobal.computedEnvironmentValues.withLock { $0.testCatalog = Catalog(prices: ["tea": 5]) }
        #expect(total.wrappedValue == 6, "the environment is not a dependency")
        quantity.wrappedValue = 3
        #expect(total.wrappedValue == 15, "the next evaluation reads it anew")
        #expect(StateGraphGlobal.computedEnvironmentValues.withLock { $0[Catalog.self]?.prices } == ["tea": 5])
    }
}

extension ComputedEnvironmentValues {
    var testCatalog: ComputedEnvironmentTests.Catalog! {
        get { self[ComputedEnvironmentTests.Catalog.self] }
        set { self[ComputedEnvironmentTests.Catalog.self] = newValue }
    }
}
