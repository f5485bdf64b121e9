import CommandSupport
import Foundation

/// One scenario of the tour: a module's sample, run end to end in its own folder.
///
/// To add a module to the tour, write a type conforming to `TourStep` in its own file
/// (`<Module>Step.swift`) and append it to `TourSteps.all`.
protocol TourStep: Sendable {
    /// The step's name in headers and the summary, usually the module's name.
    var name: String { get }
    /// One sentence saying what the step shows.
    var summary: String { get }
    /// Runs the scenario on the main actor; throws to report failure. Must not crash on failure. A
    /// step that has async work awaits it here (the main actor is free while it waits).
    @MainActor func run(_ context: TourContext) async throws
}

/// What a step gets to work with: its own empty folder, where to print, and the program that runs
/// its second processes.
struct TourContext {
    /// A fresh folder only this step writes to, inside the tour's data folder.
    var folder: URL
    /// Where the step's lines go.
    var streams: CommandStreams
    /// The `tour` program, which a step starts again (with a child flag) as a second process.
    var program: URL

    /// Prints one indented line of the step's output.
    func say(_ line: String = "") {
        streams.print(line.isEmpty ? "" : "  " + line)
    }

    /// The path of `name` inside this step's folder.
    func file(_ name: String) -> URL {
        folder.appendingPathComponent(name)
    }
}

