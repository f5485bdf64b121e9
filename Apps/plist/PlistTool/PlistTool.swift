import Foundation
import PlistCodec

/// `plist`, a `plutil` for Linux: checks, prints, converts and edits property lists with plutil's
/// command lines, on `PlistCodec`.
///
/// The command is a library so the `plist` executable, the tour and the tests all run the same code;
/// the executable only connects it to the process's standard streams.
///
/// ```swift
/// let status = PlistTool.run(arguments: ["-convert", "xml1", "-o", "-", "Info.plist"],
///                            standardInput: { Data() },
///                            standardOutput: { print(String(decoding: $0, as: UTF8.self), terminator: "") },
///                            standardError: { _ in })
/// ```
public enum PlistTool {
    /// Runs one `plist` command line and returns its exit status: 0 on success, 1 on any failure.
    ///
    /// Every file named is processed even when an earlier one fails; each failure is reported on
    /// standard error as `file: what went wrong`.
    ///
    /// - Parameters:
    ///   - arguments: The command line without the program name, e.g. `["-lint", "a.plist"]`.
    ///   - standardInput: Returns everything on standard input; called at most once, for a file named `-`.
    ///   - standardOutput: Receives standard output, in order, possibly in several pieces.
    ///   - standardError: Receives standard error, in order.
    public static func run(arguments: [String], standardInput: @escaping () -> Data,
                           standardOutput: @escaping (Data) -> Void, standardError: @escaping (Data) -> Void) -> Int32 {
        let io = ToolIO(readStandardInput: standardInput, writeOutput: standardOutput, writeError: standardError)
        let command: PlistCommand
        do {
            command = try PlistCommand(parsing: arguments)
        } catch {
            io.error("\(error)\nRun 'plist -help' for usage.\n")
            return 1
        }
        if command.operation == .help {
            io.output(usage)
            return 0
        }
        let session = ToolSession(command: command, io: io)
        var failed = false
        for file in command.files where !session.process(file) { failed = true }
        return failed ? 1 : 0
    }
}

/// The streams a run reads and writes.
final class ToolIO {
    private let readStandardInput: () -> Data
    private var standardInputData: Data?
    let writeOutput: (Data) -> Void
    let writeError: (Data) -> Void

    init(readStandardInput: @escaping () -> Data, writeOutput: @escaping (Data) -> Void, writeError: @escaping (Data) -> Void) {
        self.readStandardInput = readStandardInput
        self.writeOutput = writeOutput
        self.writeError = writeError
    }

    /// Standard input, read once (a second `-` sees the same bytes).
    var standardInput: Data {
        if let standardInputData { return standardInputData }
        let data = readStandardInput()
        standardInputData = data
        return data
    }

    func output(_ text: String) { writeOutput(Data(text.utf8)) }
    func error(_ text: String) { writeError(Data(text.utf8)) }
}
