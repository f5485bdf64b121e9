import StateGraph
import Testing

/// swift-state-graph's other ways to make a computed node.
@Suite("computed forms")
struct ComputedFormsTests {
    @Test("rule:, a node over a stored or computed node, a constant, and map follow their sources")
    func forms() {
        let count = Stored(name: "count", wrappedValue: 2)
        let labelled = Computed(name: "triple", rule: { _ in count.wrappedValue * 3 })
        let view = Computed(count)
        let viewOfView = Computed(labelled)
        let constant = Computed(constant: [1, 2, 3])
        let doubled = count.map { _, value in value * 2 }
        let described = labelled.map { _, value in "\(value)!" }
        #expect((labelled.wrappedValue, view.wrappedValue, viewOfView.wrappedValue, doubled.wrappedValue, described.wrappedValue) == (6, 2, 6, 4, "6!"))
        count.wrappedValue = 5
        #expect((labelled.wrappedValue, view.wrappedValue, viewOfView.wrappedValue, doubled.wrappedValue, described.wrappedValue) == (15, 5, 15, 10, "15!"))
        #expect(constant.wrappedValue == [1, 2, 3])
        #expect(constant.evaluationCount == 1)
        #expect(view.name == "count" && constant.name == "constant")
    }

    @MainActor
    @Test("a map's node is tracked like any other")
    func mappedNodeTracked() async {
        let count = Stored(name: "count", wrappedValue: 1)
        let doubled = count.map { _, value in value * 2 }
        var seen: [Int] = []
        let token = withGraphTracking {
            withGraphTrackingMap { doubled.wrappedValue } onChange: { seen.append($0) }
        }
        count.wrappedValue = 4
        await TrackingScopeTests.drainMainActor()
        #expect(seen == [2, 8])
        token.cancel()
    }
}
