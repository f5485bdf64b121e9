import Foundation
import Testing
import TestSupport

/// The `plist` program, run as a child process: the binary `swift build --build-tests` put beside the
/// tests (a test never builds it).
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

    /// `plist`, next to the test executable.
    static func executable() throws -> URL {
        try ChildProcess.builtProgram("plist")
    }

    /// Runs `plist arguments` and waits for it to end.
    static func run(_ arguments: [String]) async throws -> Run {
        let child = try ChildProcess.start(try executable(), arguments)
        let termination = try await child.waitForExit(deadline: .now + .seconds(60))
        return Run(arguments: arguments, termination: termination, output: child.standardOutput, errors: child.standardError)
    }
}
