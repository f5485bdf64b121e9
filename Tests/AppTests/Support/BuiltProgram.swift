import Foundation
import TestSupport

/// What one run of a built app program did.
struct ProgramRun: CustomStringConvertible {
    let arguments: [String]
    let termination: ChildTermination
    let output: String
    let errors: String

    /// Standard output without the final newline.
    var line: String { output.hasSuffix("\n") ? String(output.dropLast()) : output }

    var description: String { "\(arguments.joined(separator: " ")): \(termination)\nstdout: \(output)\nstderr: \(errors)" }
}

/// The app programs `swift build --build-tests` put beside the tests (a test never builds them), run
/// where the process is the point: exit statuses, standard streams, several processes, the environment.
enum BuiltProgram {
    /// Runs the program `name` with `arguments` (in `environment`, or this process's) and waits for it to end.
    static func run(_ name: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> ProgramRun {
        let child = try ChildProcess.start(try ChildProcess.builtProgram(name), arguments, environment: environment)
        let termination = try await child.waitForExit(deadline: .now + .seconds(180))
        return ProgramRun(arguments: arguments, termination: termination, output: child.standardOutput, errors: child.standardError)
    }
}
