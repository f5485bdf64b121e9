import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command's text goes and where its answers come from: the process's standard streams, or
/// whatever a caller hands in (a test's buffers, the tour's log).
///
/// Every app command writes through the streams it is given, never through `print`, so the same
/// code runs as a program, inside the tour and inside a test:
///
/// ```swift
/// let (streams, captured) = CommandStreams.capturing()
/// let status = await ProfileCommand.run(arguments: ["show", "--folder", folder.path], streams: streams)
/// // status == 0, captured.output holds what `profile show` printed
/// ```
public struct CommandStreams: Sendable {
    /// Receives standard output, in order, possibly in several pieces.
    public let writeOutput: @Sendable (Data) -> Void
    /// Receives standard error, in order.
    public let writeError: @Sendable (Data) -> Void
    /// Returns the next line of standard input without its newline, or `nil` at the end.
    public let readLine: @Sendable () -> String?
    /// Whether standard error is a terminal, where a command may draw progress.
    public let errorIsTerminal: Bool

    /// Streams made of these functions.
    public init(writeOutput: @escaping @Sendable (Data) -> Void, writeError: @escaping @Sendable (Data) -> Void,
                readLine: @escaping @Sendable () -> String? = { nil }, errorIsTerminal: Bool = false) {
        self.writeOutput = writeOutput
        self.writeError = writeError
        self.readLine = readLine
        self.errorIsTerminal = errorIsTerminal
    }

    /// The process's standard output, error and input.
    ///
    /// Output is written straight to the file descriptor, unbuffered, so a program reading a pipe
    /// (a test, the tour's second process) sees each line as soon as it is printed.
    public static var standard: CommandStreams {
        CommandStreams(writeOutput: { FileHandle.standardOutput.write($0) },
                       writeError: { FileHandle.standardError.write($0) },
                       readLine: { Swift.readLine(strippingNewline: true) },
                       errorIsTerminal: isatty(STDERR_FILENO) == 1)
    }

    /// Writes `text` and `terminator` to standard output.
    public func print(_ text: String = "", terminator: String = "\n") {
        writeOutput(Data((text + terminator).utf8))
    }

    /// Writes `text` and `terminator` to standard error.
    public func printError(_ text: String, terminator: String = "\n") {
        writeError(Data((text + terminator).utf8))
    }
}
