import FileStorageKit
import Foundation
import Observation
import StateGraph
import Synchronization

/// The sample model of the StateGraph step: two suite-backed flags, a memory-only diamond, and what
/// follows from them.
final class TourConfiguration: Sendable {
    @GraphStored(backed: .userDefaults(key: "debugMode"))
    var debugMode: Bool = false

    @GraphStored(backed: .userDefaults(suite: "tour.experiments", key: "experiments"))
    var experiments: Bool = false

    @GraphStored var price: Int = 3
    @GraphComputed var net: Int
    @GraphComputed var tax: Int
    @GraphComputed var total: String

    @GraphComputed var shouldShowDebugOptions: Bool

    init() {
        self.$shouldShowDebugOptions = .init { [$debugMode, $experiments] _ in
            $debugMode.wrappedValue || $experiments.wrappedValue
        }
        // A diamond: price feeds net and tax, both feed total.
        self.$net = .init { [$price] _ in $price.wrappedValue * 100 }
        self.$tax = .init { [$price] _ in $price.wrappedValue * 20 }
        self.$total = .init { [$net, $tax] _ in "\($net.wrappedValue) + \($tax.wrappedValue) tax" }
    }
}

/// The StateGraph scenario: stored and computed nodes, a diamond, tracking, a batch, persistence, a
/// write that changes nothing, and a value written by someone else reaching the computed node.
struct StateGraphStep: TourStep {
    var name: String { "StateGraph" }
    var summary: String { "@GraphStored / @GraphComputed: lazy cached nodes, a diamond, tracking, suites, outside writes" }

    @MainActor func run(_ context: TourContext) async throws {
        try GraphStorageLocation.$folder.withValue(context.folder) {
            try GraphStorageLocation.$standardSuiteName.withValue("tour") {
                let model = TourConfiguration()
                try diamond(context, model)
                try tracking(context, model)
                try persistence(context, model)
                try outsideWrite(context, model)
            }
        }
    }

    /// The diamond recomputes its bottom once per change, never from a mix of values.
    private func diamond(_ context: TourContext, _ model: TourConfiguration) throws {
        context.say("@GraphStored var price = 3; net = price * 100; tax = price * 20; total = \"net + tax\" (a diamond)")
        try check(model.$total.evaluationCount == 0, "total was computed before anyone read it")
        context.say("total = \"\(model.total)\": computed on the first read (lazy), then cached")
        _ = model.total
        model.price = 5
        try check(model.$total.evaluationCount == 1, "a write computed total")
        let total = model.total
        try check(total == "500 + 100 tax", "total is \"\(total)\" after price = 5")
        try check(model.$total.evaluationCount == 2 && model.$net.evaluationCount == 2 && model.$tax.evaluationCount == 2,
                  "evaluations: total \(model.$total.evaluationCount), net \(model.$net.evaluationCount), tax \(model.$tax.evaluationCount)")
        context.say("price = 5 marks net, tax and total stale; reading total computes each once: \"\(total)\"")
    }

    /// withGraphObservationTracking, withObservationTracking and a batch.
    private func tracking(_ context: TourContext, _ model: TourConfiguration) throws {
        let graphFired = Flag()
        let observationFired = Flag()
        withGraphObservationTracking { _ = model.total } onChange: { graphFired.raise() }
        withObservationTracking { _ = model.total } onChange: { observationFired.raise() }
        withGraphBatch {
            model.price = 6
            model.price = 7
        }
        try check(graphFired.count == 1 && observationFired.count == 1,
                  "tracking fired \(graphFired.count) and \(observationFired.count) times for one batch")
        context.say("")
        context.say("withGraphBatch { price = 6; price = 7 }: withGraphObservationTracking and withObservationTracking "
            + "on total each fire once; total = \"\(model.total)\"")
    }

    /// Suite-backed values survive a new instance; an equal set writes nothing.
    private func persistence(_ context: TourContext, _ model: TourConfiguration) throws {
        try check(!model.shouldShowDebugOptions, "debug options shown before any flag was set")
        model.debugMode = true
        try check(model.shouldShowDebugOptions, "debugMode = true did not show debug options")
        let suite = context.file("tour.plist")
        let fresh = TourConfiguration()
        try check(fresh.debugMode && fresh.shouldShowDebugOptions, "a new instance did not restore debugMode")
        context.say("")
        context.say("@GraphStored(backed: .userDefaults(key: \"debugMode\")): debugMode = true writes <step folder>/tour.plist;")
        context.say("  a new TourConfiguration() reads it back: shouldShowDebugOptions = \(fresh.shouldShowDebugOptions)")

        let writes = model.$debugMode.suiteWriteCount
        let monitor = FileChangeMonitor(url: suite)
        let token = monitor.changeToken
        for _ in 0..<100 { model.debugMode = true }
        try check(model.$debugMode.suiteWriteCount == writes && monitor.changeToken == token,
                  "setting the current value wrote the suite")
        context.say("100 × debugMode = true (the current value): no write, no notification")
    }

    /// A value written to the suite file by someone else reaches the node and its dependents.
    private func outsideWrite(_ context: TourContext, _ model: TourConfiguration) throws {
        model.debugMode = false
        try check(!model.shouldShowDebugOptions, "debug options still shown")
        let other = DefaultsSuite(suiteName: "tour.experiments", folder: context.folder)
        try other.set(true, forKey: "experiments")
        let seen = waitFor(seconds: 10) { model.shouldShowDebugOptions }
        try check(seen, "the outside write did not reach shouldShowDebugOptions within 10 s")
        context.say("")
        context.say("another DefaultsSuite (as another process would) sets experiments = true in tour.experiments.plist:")
        context.say("  the node sees the change and shouldShowDebugOptions becomes \(model.shouldShowDebugOptions) without a restart")
    }
}
