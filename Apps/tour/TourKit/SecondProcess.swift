import Foundation

/// Runs `program` with `arguments` as a second process that watches a store, waits until it printed a
/// line starting with `readyPrefix`, runs `change`, and waits for the process to end by itself (it
/// stops after the updates it was told to expect). Returns every line it printed; its output also
/// stays in `log`.
///
/// - Throws: `TourFailure` when it does not print the ready line within `startSeconds`, does not end
///   within `endSeconds` after the change, or ends with a status other than 0; what `change` throws.
func runWatcher(_ program: URL, _ arguments: [String], log: URL, readyPrefix: String,
                startSeconds: Double = 60, endSeconds: Double = 60, change: () throws -> Void) throws -> [String] {
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let output = try FileHandle(forWritingTo: log)
    defer { try? output.close() }
    let process = Process()
    process.executableURL = program
    process.arguments = arguments
    process.standardOutput = output
    try process.run()
    defer { if process.isRunning { process.terminate() } }
    func lines() -> [String] {
        String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)
    }
    let ready = waitFor(seconds: startSeconds, every: 10) { lines().contains { $0.hasPrefix(readyPrefix) } || !process.isRunning }
    try check(ready && lines().contains { $0.hasPrefix(readyPrefix) }, "the watching process did not start: \(lines())")
    try change()
    let ended = waitFor(seconds: endSeconds, every: 10) { !process.isRunning }
    try check(ended, "the watching process did not report the change: \(lines())")
    try check(process.terminationStatus == 0, "the watching process failed with status \(process.terminationStatus)")
    return lines()
}

/// Runs `program` with `arguments` as another process and returns its standard output.
///
/// - Throws: `TourFailure` with its output when it ends with a status other than 0.
func runProcess(_ program: URL, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = program
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
