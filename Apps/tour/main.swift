import Foundation
import OrdersKit
import ShapesKit

// tour: runs every sample scenario end to end in a fresh data folder. See README.md.

// The ManagedStorage step's second process: this program, running the `orders` command.
if CommandLine.arguments.dropFirst().first == ManagedStorageStep.childFlag {
    OrdersCommand.main(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}
// The DocumentStore step's second process: this program, running the `shapes` command.
if CommandLine.arguments.dropFirst().first == DocumentStoreStep.childFlag {
    ShapesCommand.main(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
}

let parsed = TourOptions.parse(Array(CommandLine.arguments.dropFirst()))
guard let options = parsed.options else {
    print(parsed.message ?? TourOptions.usage)
    exit(parsed.message == TourOptions.usage ? 0 : 2)
}

let dataFolder: URL
do {
    dataFolder = try makeDataFolder(in: options.dataRoot)
} catch {
    print("tour: cannot create the data folder: \(error)")
    exit(1)
}
print("tour: data folder \(dataFolder.path)")

var outcomes: [(name: String, error: (any Error)?, seconds: Double)] = []
let clock = ContinuousClock()
for (number, step) in TourSteps.all.enumerated() {
    print("\n== \(number + 1)/\(TourSteps.all.count) \(step.name): \(step.summary)")
    var failure: (any Error)?
    let elapsed = clock.measure {
        do {
            let folder = dataFolder.appendingPathComponent(step.name, isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try step.run(TourContext(folder: folder))
        } catch {
            failure = error
        }
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    if let failure { print("  FAILED: \(describe(failure))") }
    outcomes.append((step.name, failure, seconds))
}

print("\n== Summary")
for outcome in outcomes {
    let status = outcome.error == nil ? "ok    " : "FAILED"
    print("  \(status) \(outcome.name) (\(String(format: "%.3f", outcome.seconds)) s)")
}
let failed = outcomes.filter { $0.error != nil }.count
print("tour: \(outcomes.count - failed) of \(outcomes.count) steps passed; files are in \(dataFolder.path)")
exit(failed == 0 ? 0 : 1)
