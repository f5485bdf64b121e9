import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The child's half of `ProcessFaults`: the options a test puts in front of a probe's own command.
///
/// Every probe (a store's child process for crash, contention and fault tests) calls
/// `ProbeOptions.parse(&arguments)` first, then `applyLimits()` at once and `waitForGate()` when its
/// setup is done, so that one harness drives every store's probe the same way:
///
/// ```swift
/// var arguments = Array(CommandLine.arguments.dropFirst())
/// let options = ProbeOptions.parse(&arguments)
/// options.applyLimits()
/// let store = openTheStore()          // setup that must not count as contention
/// options.waitForGate()
/// ```
///
///     --start-after GATE       print "waiting", then hold the work until the file GATE exists (while the
///                              parent lives, 600 s at most: a loaded test process may take long to open it)
///     --file-size-limit BYTES  RLIMIT_FSIZE = BYTES with SIGXFSZ ignored, so a larger write fails with EFBIG
///                              (the kernel's "disk full" for one process) instead of killing it
///     --durability normal|full the SQLite stores' durability (default `full`; PowerCutTests measure
///                              what `normal` loses)
///
/// The options come from the arguments, never the environment, so nothing leaks into other children.
public struct ProbeOptions: Sendable {
    /// The file whose appearance starts the work.
    public var gate: String?
    /// The largest file this process may write.
    public var fileSizeLimit: UInt64?
    /// Whether a SQLite store opens with `.normal` durability instead of `.full`.
    public var normalDurability = false

    /// The option for `gate`.
    public static let startAfterFlag = "--start-after"
    /// The option for `fileSizeLimit`.
    public static let fileSizeLimitFlag = "--file-size-limit"
    /// The option for `normalDurability`.
    public static let durabilityFlag = "--durability"

    /// Removes the leading harness options from `arguments` and returns them.
    ///
    /// A malformed option prints a usage line on stderr and exits with status 2 (`ProbeExit.usage`).
    public static func parse(_ arguments: inout [String]) -> ProbeOptions {
        var options = ProbeOptions()
        while let first = arguments.first, first.hasPrefix("--") {
            guard arguments.count >= 2 else { fail("\(first) needs a value") }
            let value = arguments[1]
            switch first {
            case startAfterFlag: options.gate = value
            case fileSizeLimitFlag:
                guard let bytes = UInt64(value) else { fail("\(fileSizeLimitFlag) takes a byte count, not \(value)") }
                options.fileSizeLimit = bytes
            case durabilityFlag:
                guard value == "normal" || value == "full" else { fail("\(durabilityFlag) takes normal or full, not \(value)") }
                options.normalDurability = value == "normal"
            default:
                return options   // a probe's own option
            }
            arguments.removeFirst(2)
        }
        return options
    }

    /// Applies the resource limits (call before the probe writes anything).
    public func applyLimits() {
        guard let bytes = fileSizeLimit else { return }
        var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
        guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else { Self.fail("setrlimit(RLIMIT_FSIZE) failed: errno \(errno)") }
        // Without this the kernel kills the process with SIGXFSZ instead of failing the write with EFBIG.
        signal(SIGXFSZ, SIG_IGN)
    }

    /// Prints `waiting` and returns once the gate file exists; returns at once without a gate.
    public func waitForGate() {
        guard let gate else { return }
        print("waiting")
        fflush(nil)
        // The test process opens the gate once every child is waiting; on a loaded machine its tasks
        // may not run for a minute or more, so the deadline is long, and a dead parent ends the wait.
        let parent = getppid()
        let deadline = ContinuousClock.now + .seconds(600)
        while access(gate, F_OK) != 0 {
            guard getppid() == parent else { Self.fail("the parent process ended before opening \(gate)") }
            guard ContinuousClock.now < deadline else { Self.fail("\(gate) did not appear within 600 s") }
            usleep(1_000)
        }
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("probe: \(message)\n".utf8))
        exit(ProbeExit.usage.rawValue)
    }
}

/// How every probe reports: a result line flushed at once (the test waits for it), a usage error
/// (status 2), and a store error as `error: <case> <description>` (status 1), so tests can tell the
/// typed error a probe met by its case name.
public enum ProbeOutput {
    /// Prints `line` on stdout and flushes it.
    public static func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    /// Prints `usage: <program> <message>` on stderr and exits with `ProbeExit.usage`.
    public static func usage(_ program: String, _ message: String) -> Never {
        FileHandle.standardError.write(Data("usage: \(program) \(message)\n".utf8))
        exit(ProbeExit.usage.rawValue)
    }

    /// Prints `error: <case> <description>` on stderr and exits with status 1; `<case>` is the enum
    /// case of a store's error type `E`, `other` for any other error.
    public static func fail<E: Error>(_ error: any Error, as type: E.Type) -> Never {
        let name = (error as? E).map { Mirror(reflecting: $0).children.first?.label ?? "\(E.self)" } ?? "other"
        FileHandle.standardError.write(Data("error: \(name) \(error)\n".utf8))
        exit(1)
    }
}
