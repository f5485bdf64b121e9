import Foundation

/// Placeholder until the step lands.
struct PlistStep: TourStep {
    var name: String { "Plist" }
    var summary: String { "not yet written" }
    func run(_ context: TourContext) throws {}
}
