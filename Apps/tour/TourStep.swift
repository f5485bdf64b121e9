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
    /// Runs the scenario; throws to report failure. Must not crash on failure.
    func run(_ context: TourContext) throws
}

/// What a step gets to work with: its own empty folder and a way to print.
struct TourContext {
    /// A fresh folder only this step writes to, inside the tour's data folder.
    var folder: URL

    /// Prints one indented line of the step's output.
    func say(_ line: String = "") {
        print(line.isEmpty ? "" : "  " + line)
    }

    /// The path of `name` inside this step's folder.
    func file(_ name: String) -> URL {
        folder.appendingPathComponent(name)
    }
}

/// A check inside a step that did not hold: what was expected and what happened.
struct TourFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}

/// Throws a `TourFailure` with `message` unless `condition` holds.
func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw TourFailure(message()) }
}

/// A one-line description of `error`: Codable errors by their coding path and debug description
/// (their default description repeats the whole value), everything else as it describes itself.
func describe(_ error: any Error) -> String {
    func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "top level" : keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
    switch error {
    case EncodingError.invalidValue(_, let context):
        return "cannot encode the value at \(path(context.codingPath)): \(context.debugDescription)"
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
         DecodingError.keyNotFound(_, let context), DecodingError.dataCorrupted(let context):
        return "cannot decode at \(path(context.codingPath)): \(context.debugDescription)"
    default:
        return "\(error)"
    }
}

/// Runs this program as a second process (`/proc/self/exe` with `arguments`) that watches a store,
/// waits until it printed a line starting with `readyPrefix`, runs `change`, and waits for the process
/// to end by itself (it stops after the updates it was told to expect). Returns every line it printed;
/// its output also stays in `log`. Throws when it does not start, does not end within 60 s, or fails.
func runWatcher(_ arguments: [String], log: URL, readyPrefix: String, change: () throws -> Void) throws -> [String] {
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let output = try FileHandle(forWritingTo: log)
    defer { try? output.close() }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = arguments
    process.standardOutput = output
    try process.run()
    defer { if process.isRunning { process.terminate() } }
    func lines() -> [String] {
        String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)
    }
    let ready = Date().addingTimeInterval(60)
    while !lines().contains(where: { $0.hasPrefix(readyPrefix) }) {
        try check(process.isRunning && Date() < ready, "the watching process did not start: \(lines())")
        Thread.sleep(forTimeInterval: 0.01)
    }
    try change()
    let done = Date().addingTimeInterval(60)
    while process.isRunning {
        try check(Date() < done, "the watching process did not report the change: \(lines())")
        Thread.sleep(forTimeInterval: 0.01)
    }
    try check(process.terminationStatus == 0, "the watching process failed with status \(process.terminationStatus)")
    return lines()
}

/// Runs this program as another process (`/proc/self/exe` with `arguments`, which start with a step's
/// child flag) and returns its standard output; throws when it fails, with its output.
func runSelf(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    try check(process.terminationStatus == 0, "the second process (\(arguments.joined(separator: " "))) failed with status \(process.terminationStatus): \(text)")
    return text
}
