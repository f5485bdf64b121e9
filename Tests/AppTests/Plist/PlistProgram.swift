import Foundation
import PlistTool
import Synchronization
import Testing
import TestSupport

/// The `plist` command: run in-process through `PlistTool.run` (empty standard input, as a child's
/// /dev/null), or as the built program where the process is the point.
enum PlistProgram {
    /// What one run did.
    struct Run: CustomStringConvertible {
        let arguments: [String]
        let termination: ChildTermination
        let output: String
        let errors: String

        var description: String {
            "plist \(arguments.joined(separator: " ")): \(termination)\nstdout: \(output)\nstderr: \(errors)"
        }
    }

    /// Runs `plist arguments` in this process.
    static func run(_ arguments: [String]) async throws -> Run {
        let output = Mutex(Data())
        let errors = Mutex(Data())
        let status = PlistTool.run(arguments: arguments, standardInput: { Data() },
                                   standardOutput: { data in output.withLock { $0.append(data) } },
                                   standardError: { data in errors.withLock { $0.append(data) } })
        return Run(arguments: arguments, termination: .exited(status),
                   output: String(decoding: output.withLock { $0 }, as: UTF8.self),
                   errors: String(decoding: errors.withLock { $0 }, as: UTF8.self))
    }

    /// Runs the built `plist` program (`swift build --build-tests` put it beside the tests) and waits for it to end.
    static func runProgram(_ arguments: [String]) async throws -> Run {
        let child = try ChildProcess.start(try ChildProcess.builtProgram("plist"), arguments)
        let termination = try await child.waitForExit(deadline: .now + .seconds(180))
        return Run(arguments: arguments, termination: termination, output: child.standardOutput, errors: child.standardError)
    }
}
