import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc

// Inside `ParsableCommand`, `exit` names ArgumentParser's `exit(withError:)`: the C function needs its module.
private func endProcess(_ status: Int32) -> Never { Glibc.exit(status) }
#elseif canImport(Darwin)
import Darwin

private func endProcess(_ status: Int32) -> Never { Darwin.exit(status) }
#endif

/// A subcommand that does its work on the streams it is handed, so a program, the tour and a test
/// all run the same code (``ParsableCommand/run(arguments:streams:)``).
///
/// ```swift
/// struct Greet: StreamingCommand {
///     @Argument var name: String
///     func run(_ streams: CommandStreams) async throws { streams.print("hello, \(name)") }
/// }
/// ```
public protocol StreamingCommand: AsyncParsableCommand {
    /// Does the command's work, writing to `streams` and reading answers from them.
    ///
    /// A command that waits (a `watch`) ends promptly, throwing `CancellationError`, when its task is
    /// cancelled.
    func run(_ streams: CommandStreams) async throws
}

extension StreamingCommand {
    /// Runs on the process's own streams (what ArgumentParser's `main()` calls).
    public mutating func run() async throws {
        try await run(.standard)
    }
}

/// A failure a command reports on standard error as `<command>: <message>`, ending with `status`.
///
/// ```swift
/// throw CommandFailure("there is no order #\(id)")          // orders: there is no order #7, status 1
/// ```
public struct CommandFailure: Error, CustomStringConvertible {
    /// What went wrong, without the command's name.
    public let message: String
    /// The exit status: 1 unless said otherwise.
    public let status: Int32

    /// A failure with `message`, ending the command with `status`.
    public init(_ message: String, status: Int32 = 1) {
        self.message = message
        self.status = status
    }

    public var description: String { message }
}

extension ParsableCommand {
    /// The exit status of a command whose task was cancelled (a shell's status for an interrupt).
    public static var cancelledStatus: Int32 { 130 }

    /// Parses `arguments` as a command line of this command (without the program's name), runs the
    /// subcommand it names with `streams`, and returns the exit status.
    ///
    /// Messages and statuses are ArgumentParser's (help on standard output with 0, a usage error on
    /// standard error with 64), plus ``CommandFailure`` as `<command>: <message>`; nothing calls
    /// `exit`, so a caller can run many commands in one process. A cancelled task ends the command
    /// with ``cancelledStatus`` and no message.
    public static func run(arguments: [String], streams: CommandStreams) async -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            if let streaming = command as? any StreamingCommand {
                try await streaming.run(streams)
            } else if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            return 0
        } catch let failure as CommandFailure {
            streams.printError("\(configuration.commandName ?? _commandName): \(failure.message)")
            return failure.status
        } catch is CancellationError {
            return cancelledStatus
        } catch {
            let status = exitCode(for: error)
            let text = fullMessage(for: error)
            if !text.isEmpty {
                if status == .success { streams.print(text) } else { streams.printError(text) }
            }
            return status.rawValue
        }
    }

    /// Runs the process's command line on its standard streams and exits with the command's status:
    /// the whole of an app's `main.swift`.
    public static func runAsProgram() async -> Never {
        let status = await run(arguments: Array(CommandLine.arguments.dropFirst()), streams: .standard)
        Foundation.exit(status)
    }
}
