import Foundation
import Synchronization

/// What a command wrote to streams made by ``CommandStreams/capturing(input:)``: readable at any
/// time, also while the command still runs (a `watch` in a task).
public final class CapturedOutput: Sendable {
    private struct State {
        var output = Data()
        var errors = Data()
        var input: ArraySlice<String>
    }

    private let state: Mutex<State>

    init(input: [String]) {
        state = Mutex(State(input: input[...]))
    }

    /// Everything written to standard output so far, as UTF-8 text.
    public var output: String { String(decoding: state.withLock { $0.output }, as: UTF8.self) }
    /// Everything written to standard output so far, as bytes.
    public var outputData: Data { state.withLock { $0.output } }
    /// Everything written to standard error so far.
    public var errors: String { String(decoding: state.withLock { $0.errors }, as: UTF8.self) }
    /// The complete lines of standard output so far, without their newlines.
    public var outputLines: [String] {
        let text = output
        guard let end = text.lastIndex(of: "\n") else { return [] }
        return text[..<end].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    func appendOutput(_ data: Data) { state.withLock { $0.output.append(data) } }
    func appendError(_ data: Data) { state.withLock { $0.errors.append(data) } }
    func nextInputLine() -> String? { state.withLock { $0.input.popFirst() } }
}

extension CommandStreams {
    /// Streams that keep what a command writes, and give it `input` as standard input.
    ///
    /// - Parameter input: The text on standard input; each `readLine` returns one line of it, as
    ///   `Swift.readLine` would (a last line without a newline included), then `nil`.
    /// - Returns: The streams to run the command with, and what it wrote.
    public static func capturing(input: String = "") -> (streams: CommandStreams, captured: CapturedOutput) {
        var lines = input.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if input.hasSuffix("\n") || input.isEmpty { lines.removeLast() }
        let captured = CapturedOutput(input: lines)
        let streams = CommandStreams(writeOutput: { captured.appendOutput($0) }, writeError: { captured.appendError($0) },
                                     readLine: { captured.nextInputLine() })
        return (streams, captured)
    }
}
