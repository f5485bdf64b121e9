import Foundation
import PlistTool

// The `plist` program: the command lives in PlistTool; this connects it to the process's streams.
let status = PlistTool.run(
    arguments: Array(CommandLine.arguments.dropFirst()),
    standardInput: { FileHandle.standardInput.readDataToEndOfFile() },
    standardOutput: { FileHandle.standardOutput.write($0) },
    standardError: { FileHandle.standardError.write($0) })
exit(status)
