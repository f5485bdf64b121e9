import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One program run as a child: how long it took, its peak resident memory, how it ended.
struct ChildRun {
    var seconds: Double
    /// The child's `ru_maxrss` from `wait4`, in bytes.
    var peakBytes: Int
    var status: Int32
    var errors: String
}

/// Runs `executable arguments` through a small copy of this program (`--measure-child`), which
/// spawns it and reports its `wait4` resource usage.
///
/// Why the middle process: Linux carries a process's peak RSS across `execve`, and a spawned child
/// starts as (a `vfork` of) its parent, so a child started straight from this benchmark (which holds
/// the generated file) would report at least the benchmark's own size. The middle process is small;
/// its own few megabytes are the floor of every figure.
func measureChild(_ executable: String, _ arguments: [String], errorFile: URL, limit: Int) -> ChildRun {
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let report = errorFile.deletingLastPathComponent().appendingPathComponent("measure.txt")
    let middle = runChild(me, ["--measure-child", String(limit), report.path, errorFile.path, executable] + arguments,
                          errorFile: errorFile, limit: nil)
    guard middle.status == 0, let text = try? String(contentsOf: report, encoding: .utf8) else { return middle }
    let fields = text.split(separator: " ")
    guard fields.count == 3, let seconds = Double(fields[0]), let peak = Int(fields[1]), let status = Int32(fields[2]) else {
        return ChildRun(seconds: 0, peakBytes: 0, status: -1, errors: "bad measurement report: \(text)")
    }
    let errors = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
    return ChildRun(seconds: seconds, peakBytes: peak, status: status, errors: errors)
}

/// The `--measure-child LIMIT REPORT ERRORS EXECUTABLE ARGS...` mode: runs the program (killing it
/// after LIMIT seconds) and writes `seconds peakBytes status` to REPORT.
func measureChildMain(_ arguments: [String]) -> Never {
    guard arguments.count >= 4, let limit = Int(arguments[0]) else { exit(2) }
    let run = runChild(arguments[3], Array(arguments.dropFirst(4)), errorFile: URL(fileURLWithPath: arguments[2]), limit: limit)
    let text = "\(run.seconds) \(run.peakBytes) \(run.status)"
    exit((try? text.write(toFile: arguments[1], atomically: true, encoding: .utf8)) == nil ? 1 : 0)
}

/// Runs `executable arguments` with standard output to /dev/null and standard error captured in a
/// file, and waits for it with `wait4`; after `limit` seconds it is killed (status -9).
func runChild(_ executable: String, _ arguments: [String], errorFile: URL, limit: Int?) -> ChildRun {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, errorFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let start = ContinuousClock.now
    guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else {
        return ChildRun(seconds: 0, peakBytes: 0, status: -1, errors: "cannot start \(executable)")
    }
    var status: Int32 = 0
    var usage = rusage()
    let deadline = limit.map { start + .seconds($0) }
    while true {
        let done = wait4(pid, &status, deadline == nil ? 0 : WNOHANG, &usage)
        if done == pid { break }
        if done < 0 && errno != EINTR { break }
        if let deadline, ContinuousClock.now >= deadline {
            kill(pid, SIGKILL)
            while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
            break
        }
        if deadline != nil { usleep(20_000) }
    }
    let elapsed = ContinuousClock.now - start
    let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -(status & 0x7F)
    let errors = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
    return ChildRun(seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                    peakBytes: Int(usage.ru_maxrss) * 1024, status: exitStatus, errors: errors)
}
