import Foundation

/// Placeholder until the step lands.
struct CollectionStoreStep: TourStep {
    var name: String { "CollectionStore" }
    var summary: String { "not yet written" }
    func run(_ context: TourContext) throws {}
}
