import Foundation

/// Placeholder until the step lands.
struct StateGraphStep: TourStep {
    var name: String { "StateGraph" }
    var summary: String { "not yet written" }
    func run(_ context: TourContext) throws {}
}
