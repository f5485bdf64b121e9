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

/// System calls by name, as `strace -c` summarises them.
struct SyscallCounts {
    var calls: [String: Int] = [:]
    var total: Int { calls.values.reduce(0, +) }

    /// `self` minus `baseline`, name by name, dropping names that did not grow.
    func subtracting(_ baseline: SyscallCounts) -> SyscallCounts {
        var result = SyscallCounts()
        for (name, count) in calls where count - (baseline.calls[name] ?? 0) > 0 {
            result.calls[name] = count - (baseline.calls[name] ?? 0)
        }
        return result
    }

    /// `openat 3, read 6`, or `none`.
    var summary: String {
        calls.isEmpty ? "none" : calls.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}

/// A failure to count with strace, with the reason to print.
struct StraceError: Error, CustomStringConvertible {
    var description: String
}

/// The syscalls `strace` is asked to count: everything that names a file, plus reads and stats.
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

/// Counts the traced system calls of every thread of this process while `body` runs, with `strace -c`
/// attached to each thread (and `-f`, to follow threads created meanwhile).
func straceCounts(strace: URL, output: URL, during body: () throws -> Void) throws -> SyscallCounts {
    let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").sorted()
    let process = Process()
    process.executableURL = strace
    process.arguments = ["-c", "-f", "-q", "-o", output.path, "-e", tracedSyscalls] + threads.flatMap { ["-p", $0] }
    try process.run()
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }

    // Wait, against a deadline, until strace is attached to every thread.
    let deadline = ContinuousClock.now + .seconds(20)
    while !threads.allSatisfy({ tracerPid(thread: $0) == process.processIdentifier }) {
        guard process.isRunning else { throw StraceError(description: "strace exited with status \(process.terminationStatus)") }
        guard ContinuousClock.now < deadline else { throw StraceError(description: "strace did not attach within 20 s") }
        usleep(10_000)
    }
    try body()
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    return try parseStraceSummary(String(contentsOf: output, encoding: .utf8))
}

/// The `TracerPid` of one of this process's threads.
private func tracerPid(thread: String) -> Int32? {
    guard let status = try? String(contentsOfFile: "/proc/self/task/\(thread)/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("TracerPid:") {
        return Int32(line.dropFirst("TracerPid:".count).trimmingCharacters(in: .whitespaces))
    }
    return nil
}

/// Reads the table `strace -c` writes: `% time  seconds  usecs/call  calls  [errors]  syscall`.
func parseStraceSummary(_ text: String) throws -> SyscallCounts {
    var counts = SyscallCounts()
    var sawHeader = false
    for line in text.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        if fields.last == "syscall" { sawHeader = true; continue }
        guard sawHeader, fields.count >= 5, let name = fields.last, name != "total", let calls = Int(fields[3]) else { continue }
        counts.calls[String(name), default: 0] += calls
    }
    guard sawHeader else { throw StraceError(description: "no summary table in strace's output: \(text.prefix(200))") }
    return counts
}
