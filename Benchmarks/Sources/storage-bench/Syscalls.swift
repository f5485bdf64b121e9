import BenchSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Proof that a get on an unchanged file does not touch the disk: count the system calls the whole
// process makes while a loop of gets runs, and subtract those of an empty window measured the same way
// (the measuring itself costs a few calls).

/// The read system calls this process (every thread) has made so far: `syscr` in `/proc/self/io`.
func readSyscallsSoFar() -> Int? {
    let fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard n > 0 else { return nil }
    let text = String(decoding: buffer[0..<n], as: UTF8.self)
    for line in text.split(separator: "\n") where line.hasPrefix("syscr:") {
        return Int(line.dropFirst("syscr:".count).trimmingCharacters(in: .whitespaces))
    }
    return nil
}

/// Read system calls made while `body` runs, minus those of an empty window (the cost of asking).
func extraReadSyscalls(during body: () throws -> Void) rethrows -> Int? {
    guard let a = readSyscallsSoFar(), let b = readSyscallsSoFar() else { return nil }
    try body()
    guard let c = readSyscallsSoFar() else { return nil }
    return (c - b) - (b - a)
}

/// System calls by name.
struct SyscallCounts {
    var calls: [String: Int] = [:]
    var total: Int { calls.values.reduce(0, +) }

    /// `openat 3, read 6`, or `none`.
    var summary: String {
        calls.isEmpty ? "none" : calls.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}

/// A failure to count with strace, with the reason to print.
struct StraceError: Error, CustomStringConvertible {
    var description: String
}

/// The syscalls `strace` is asked to trace: everything that names a file, plus reads and stats.
let tracedSyscalls = "trace=file,read,openat,statx,fstat,newfstatat"

/// The `strace` executable on `PATH`, if any.
func findStrace() -> URL? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for dir in path.split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(dir)).appendingPathComponent("strace")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
}

/// Counts the traced system calls every thread of this process makes while `body` runs.
///
/// `strace -f -p <this process>` attaches to every thread; `body` runs between two marker calls
/// (`access` on a path that does not exist), and only the calls logged between them are counted, so
/// the waiting for strace to attach is not.
func straceCounts(strace: URL, output: URL, during body: () throws -> Void) throws -> SyscallCounts {
    let process = Process()
    process.executableURL = strace
    process.arguments = ["-f", "-q", "-o", output.path, "-e", tracedSyscalls, "-p", String(getpid())]
    try process.run()
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }

    // Wait, against a deadline, until strace is attached to every thread.
    let deadline = ContinuousClock.now + .seconds(20)
    while !allThreadsTraced(by: process.processIdentifier) {
        guard process.isRunning else { throw StraceError(description: "strace exited with status \(process.terminationStatus)") }
        guard ContinuousClock.now < deadline else { throw StraceError(description: "strace did not attach within 20 s") }
        usleep(10_000)
    }
    let marker = "/storage-bench-marker-\(UUID().uuidString)"
    _ = access(marker + "-begin", F_OK)
    try body()
    _ = access(marker + "-end", F_OK)
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    return try countBetweenMarkers(String(contentsOf: output, encoding: .utf8), marker: marker)
}

/// Whether every thread of this process has `tracer` as its `TracerPid`.
private func allThreadsTraced(by tracer: Int32) -> Bool {
    guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return false }
    return threads.allSatisfy { thread in
        guard let status = try? String(contentsOfFile: "/proc/self/task/\(thread)/status", encoding: .utf8) else { return false }
        return status.split(separator: "\n").contains { $0.hasPrefix("TracerPid:") && $0.hasSuffix("\t\(tracer)") }
    }
}

/// Counts the calls strace logged strictly between the two marker lines, by name.
///
/// Lines look like `1234  openat(AT_FDCWD, "/x", O_RDONLY) = 3`; a call another thread interrupted is
/// split into `read(3, <unfinished ...>` and `<... read resumed>...`, and only the first half is counted.
func countBetweenMarkers(_ log: String, marker: String) throws -> SyscallCounts {
    var counts = SyscallCounts()
    var inside = false
    var sawEnd = false
    for line in log.split(separator: "\n") {
        if line.contains(marker + "-begin") { inside = true; continue }
        if line.contains(marker + "-end") { sawEnd = true; break }
        guard inside, !line.contains("resumed>"), !line.contains("+++"), !line.contains("---") else { continue }
        // Drop the thread id, then take the name before the parenthesis.
        var call = line[...]
        if call.hasPrefix("[pid"), let close = call.firstIndex(of: "]") { call = call[call.index(after: close)...] }
        call = call.drop { $0.isNumber || $0 == " " }
        guard let paren = call.firstIndex(of: "(") else { continue }
        let name = call[..<paren].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { continue }
        counts.calls[name, default: 0] += 1
    }
    guard inside, sawEnd else { throw StraceError(description: "the markers are missing from strace's log") }
    return counts
}
