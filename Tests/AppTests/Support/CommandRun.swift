import ArgumentParser
import CommandSupport
import Foundation
import Synchronization
import TestSupport

/// What one in-process run of an app's command did.
struct CommandRun: CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let output: String
    let errors: String

    /// Standard output without the final newline.
    var line: String { output.hasSuffix("\n") ? String(output.dropLast()) : output }

    /// The complete lines of standard output.
    var outputLines: [String] {
        var lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()
        return lines
    }

    var description: String { "\(arguments.joined(separator: " ")): status \(status)\nstdout: \(output)\nstderr: \(errors)" }
}

extension ParsableCommand {
    /// Runs the command line `arguments` in this process with captured streams (`input` on standard
    /// input), as `Command/main.swift` runs the process's.
    static func runCaptured(_ arguments: [String], input: String = "") async -> CommandRun {
        let (streams, captured) = CommandStreams.capturing(input: input)
        let status = await run(arguments: arguments, streams: streams)
        return CommandRun(arguments: arguments, status: status, output: captured.output, errors: captured.errors)
    }

    /// Starts the command line `arguments` in a task of its own, for commands that wait (`watch`).
    static func start(_ arguments: [String]) -> RunningCommand {
        RunningCommand { streams in await run(arguments: arguments, streams: streams) }
    }
}

/// A command running in a task of this process, watched like a `ChildProcess`: its output as it
/// comes, its end against a deadline, and cancellation.
final class RunningCommand: Sendable {
    let captured: CapturedOutput
    private let status = Mutex<Int32?>(nil)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ body: @escaping @Sendable (CommandStreams) async -> Int32) {
        let (streams, captured) = CommandStreams.capturing()
        self.captured = captured
        let started = Task { [weak self] in
            let result = await body(streams)
            self?.status.withLock { $0 = result }
        }
        task.withLock { $0 = started }
    }

    /// Cancels the command's task.
    func cancel() {
        task.withLock { $0?.cancel() }
    }

    /// The first complete line of output that `predicate` accepts, once there is one.
    ///
    /// - Throws: `ChildProcessError` when the command ends, or `deadline` passes, without such a line.
    @discardableResult
    func waitForLine(deadline: ContinuousClock.Instant, where predicate: (String) -> Bool) async throws -> String {
        while true {
            if let line = captured.outputLines.first(where: predicate) { return line }
            if let ended = status.withLock({ $0 }) { throw failure("ended (status \(ended)) without the awaited line") }
            guard ContinuousClock.now < deadline else { throw failure("no awaited line before the deadline") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The command's exit status, once it has ended.
    ///
    /// - Throws: `ChildProcessError` when it is still running at `deadline`.
    func waitForExit(deadline: ContinuousClock.Instant) async throws -> Int32 {
        while true {
            if let ended = status.withLock({ $0 }) { return ended }
            guard ContinuousClock.now < deadline else { throw failure("still running at the deadline") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    private func failure(_ what: String) -> ChildProcessError {
        ChildProcessError(description: "the command \(what)\nstdout: \(captured.output)\nstderr: \(captured.errors)")
    }
}
