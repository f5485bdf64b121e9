import CommandSupport
import Foundation
import OrdersKit
import ShapesKit

/// `tour`: runs every sample scenario end to end in a fresh data folder and prints what each did.
///
/// ```swift
/// let status = await Tour.run(arguments: ["--data-root", "/tmp/tours"], streams: .standard)
/// ```
///
/// Some steps start a second process: `program` run again with a step's child flag, which makes it
/// the `orders` or `shapes` command instead (`Command/main.swift` is the whole `tour` program).
public enum Tour {
    /// This process's own program, which the steps start again as their second processes.
    public static var currentProgram: URL {
        #if os(Linux)
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        #else
        Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        #endif
    }

    /// Runs one `tour` command line (without the program's name) and returns its exit status: 0 when
    /// every step passed, 1 when one failed, 2 for bad arguments.
    ///
    /// - Parameters:
    ///   - arguments: `[]`, `["--data-root", PATH]`, `["--help"]`, or a step's child flag followed by
    ///     an `orders` or `shapes` command line.
    ///   - streams: Where the tour prints.
    ///   - program: The `tour` program, started again for the steps' second processes.
    @MainActor
    public static func run(arguments: [String], streams: CommandStreams, program: URL = currentProgram) async -> Int32 {
        switch arguments.first {
        case ManagedStorageStep.childFlag:
            return await OrdersCommand.run(arguments: Array(arguments.dropFirst()), streams: streams)
        case DocumentStoreStep.childFlag:
            return await ShapesCommand.run(arguments: Array(arguments.dropFirst()), streams: streams)
        default:
            break
        }
        let parsed = TourOptions.parse(arguments)
        guard let options = parsed.options else {
            streams.print(parsed.message ?? TourOptions.usage)
            return parsed.message == TourOptions.usage ? 0 : 2
        }
        let dataFolder: URL
        do {
            dataFolder = try makeDataFolder(in: options.dataRoot)
        } catch {
            streams.print("tour: cannot create the data folder: \(error)")
            return 1
        }
        streams.print("tour: data folder \(dataFolder.path)")
        let failed = await runSteps(TourSteps.all, in: dataFolder, streams: streams, program: program)
        return failed == 0 ? 0 : 1
    }

    /// Runs the process's command line on its standard streams and exits with the tour's status: the
    /// whole of `Command/main.swift`.
    @MainActor
    public static func runAsProgram() async -> Never {
        exit(await run(arguments: Array(CommandLine.arguments.dropFirst()), streams: .standard))
    }

    /// Runs `steps` in order, each in its own folder inside `dataFolder`, prints a summary, and
    /// returns how many failed. A failed step does not stop the others.
    @MainActor
    static func runSteps(_ steps: [any TourStep], in dataFolder: URL, streams: CommandStreams, program: URL) async -> Int {
        var outcomes: [(name: String, error: (any Error)?, seconds: Double)] = []
        let clock = ContinuousClock()
        for (number, step) in steps.enumerated() {
            streams.print("\n== \(number + 1)/\(steps.count) \(step.name): \(step.summary)")
            var failure: (any Error)?
            let started = clock.now
            do {
                let folder = dataFolder.appendingPathComponent(step.name, isDirectory: true)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try await step.run(TourContext(folder: folder, streams: streams, program: program))
            } catch {
                failure = error
            }
            let elapsed = clock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            if let failure { streams.print("  FAILED: \(describe(failure))") }
            outcomes.append((step.name, failure, seconds))
        }

        streams.print("\n== Summary")
        for outcome in outcomes {
            let status = outcome.error == nil ? "ok    " : "FAILED"
            streams.print("  \(status) \(outcome.name) (\(String(format: "%.3f", outcome.seconds)) s)")
        }
        let failed = outcomes.filter { $0.error != nil }.count
        streams.print("tour: \(outcomes.count - failed) of \(outcomes.count) steps passed; files are in \(dataFolder.path)")
        return failed
    }
}
