import Foundation
#if canImport(Glibc)
import Glibc

// `ChildProcess` has a `kill` member, so inside it the C function needs its module's name.
private func sendSignal(_ pid: pid_t, _ signal: Int32) { _ = Glibc.kill(pid, signal) }
#elseif canImport(Darwin)
import Darwin

private func sendSignal(_ pid: pid_t, _ signal: Int32) { _ = Darwin.kill(pid, signal) }
#endif

/// How a child process ended.
public enum ChildTermination: Equatable, Sendable, CustomStringConvertible {
    /// It called `exit` with this status.
    case exited(Int32)
    /// A signal ended it.
    case signaled(Int32)

    public var description: String {
        switch self {
        case .exited(let code): return "exit \(code)"
        case .signaled(let signal): return "signal \(signal)"
        }
    }
}

/// A child process could not be started, or did not do what was awaited before the deadline.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// What went wrong, with the command line and the output captured so far.
    public let description: String

    public init(description: String) { self.description = description }
}

/// A program started with `posix_spawn`, its stdout and stderr captured, waited for against deadlines
/// (stretched by `DeadlineScale` under the sanitizers).
///
/// Waiting never blocks a thread: it polls (`waitpid(WNOHANG)`, non-blocking reads) and pauses with
/// `Task.sleep`, so a test waiting on a slow child leaves the cooperative pool (2 threads here) to the
/// other tests. A child still running when the object goes away is killed with SIGKILL and reaped.
///
/// ```swift
/// let child = try ChildProcess.start(ChildProcess.storageProbe(), ["write-loop", path])
/// let ready = try await child.waitForLine(deadline: .now + .seconds(180)) { $0.hasPrefix("ready") }
/// child.kill(SIGKILL)
/// let end = try await child.waitForExit(deadline: .now + .seconds(180))   // .signaled(SIGKILL)
/// ```
///
/// Not thread-safe: one task drives each child.
public final class ChildProcess {
    /// The process id.
    public let pid: pid_t
    /// What was run, wrapper included, for messages.
    public let commandLine: [String]
    private var outFD: Int32
    private var errFD: Int32
    private var out = Data()
    private var err = Data()
    /// How it ended, once it has (and has been reaped).
    public private(set) var termination: ChildTermination?

    private init(pid: pid_t, commandLine: [String], outFD: Int32, errFD: Int32) {
        self.pid = pid
        self.commandLine = commandLine
        self.outFD = outFD
        self.errFD = errFD
    }

    deinit {
        if termination == nil {
            sendSignal(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        if outFD >= 0 { close(outFD) }
        if errFD >= 0 { close(errFD) }
    }

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: The child's whole environment; the parent's when `nil`.
    ///   - wrapper: A command line run in front, e.g. `setpriv --reuid=65534 ... --`; its first element
    ///     must be an absolute path.
    public static func start(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                             wrapper: [String] = []) throws -> ChildProcess {
        let commandLine = wrapper + [executable.path] + arguments
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        // Close-on-exec from birth: a child another test spawns meanwhile must not inherit our write
        // ends (or we would never see end-of-file). Glibc's `pipe2` is not imported into Swift, so
        // these are socket pairs, created with SOCK_CLOEXEC.
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &outPipe) == 0 else { throw failure("socketpair", commandLine) }
        guard socketpair(AF_UNIX, type, 0, &errPipe) == 0 else {
            close(outPipe[0]); close(outPipe[1])
            throw failure("socketpair", commandLine)
        }
        defer { close(outPipe[1]); close(errPipe[1]) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        // Nothing else crosses: a socket another thread opened without close-on-exec (NIO's connections
        // to PostgreSQL) would otherwise live on in the child, and in a daemon it leaves behind (a
        // PostgreSQL server started through ci/postgres), so closing it here would never end it.
        closeFrom(3, in: &actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Signals the test process ignores (SIGPIPE, say) would stay ignored across exec.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGXFSZ, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv: [UnsafeMutablePointer<CChar>?] = commandLine.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environmentStrings: [UnsafeMutablePointer<CChar>?]? = environment.map { env in
            env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { environmentStrings?.forEach { free($0) } }

        var pid: pid_t = 0
        let status: Int32
        if let environmentStrings {
            status = posix_spawn(&pid, commandLine[0], &actions, &attributes, argv, environmentStrings)
        } else {
            status = posix_spawn(&pid, commandLine[0], &actions, &attributes, argv, environ)
        }
        guard status == 0 else {
            close(outPipe[0]); close(errPipe[0])
            throw ChildProcessError(description: "posix_spawn \(commandLine.joined(separator: " ")): \(String(cString: strerror(status)))")
        }
        for fd in [outPipe[0], errPipe[0]] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return ChildProcess(pid: pid, commandLine: commandLine, outFD: outPipe[0], errFD: errPipe[0])
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift does not
    /// import: found at run time, and skipped where the C library lacks it.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    private static func closeFrom(_ lowest: Int32, in actions: inout posix_spawn_file_actions_t) {
        if let addCloseFrom { _ = addCloseFrom(&actions, lowest) }
    }

    private static func failure(_ operation: String, _ commandLine: [String]) -> ChildProcessError {
        ChildProcessError(description: "\(operation) for \(commandLine.joined(separator: " ")): \(String(cString: strerror(errno)))")
    }

    /// Everything the child wrote to stdout so far.
    public var standardOutput: String { String(decoding: out, as: UTF8.self) }
    /// Everything the child wrote to stderr so far.
    public var standardError: String { String(decoding: err, as: UTF8.self) }
    /// The complete lines written to stdout so far.
    public var outputLines: [String] {
        var lines = standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()   // the text after the last newline: empty, or a line still being written
        return lines
    }

    /// Sends `signal` (unless the child has already been reaped).
    public func kill(_ signal: Int32) {
        if termination == nil { sendSignal(pid, signal) }
    }

    /// Reads the output available now and reaps the child if it has ended; never blocks.
    public func poll() {
        drain(&outFD, into: &out)
        drain(&errFD, into: &err)
        guard termination == nil else { return }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid {
            // WIFEXITED / WTERMSIG, which Swift does not import as functions.
            termination = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
            // Its output is all in the pipes now; read it even if a racing spawn elsewhere still holds a write end.
            drain(&outFD, into: &out)
            drain(&errFD, into: &err)
        } else if r < 0 && errno == ECHILD {
            termination = .exited(-1)   // someone else reaped it; the status is lost
        }
    }

    private func drain(_ fd: inout Int32, into buffer: inout Data) {
        guard fd >= 0 else { return }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                buffer.append(contentsOf: chunk[0..<n])
            } else if n == 0 {
                close(fd)
                fd = -1
                return
            } else if errno == EINTR {
                continue
            } else {
                return   // EAGAIN: nothing more for now
            }
        }
    }

    /// Waits until stdout has a complete line matching `predicate` and returns it.
    ///
    /// - Throws: `ChildProcessError` when the child ends without such a line or the deadline passes.
    public func waitForLine(deadline: ContinuousClock.Instant, where predicate: (String) -> Bool) async throws -> String {
        let deadline = DeadlineScale.scaled(deadline)
        while true {
            poll()
            if let line = outputLines.first(where: predicate) { return line }
            if termination != nil { throw error("ended (\(termination!)) without the awaited line") }
            guard ContinuousClock.now < deadline else { throw error("no awaited line before the deadline") }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Waits until the child ends and returns how. At the deadline it is killed and this throws;
    /// `hangReport`, when given, is asked first what the child is doing (while it still runs) and
    /// its answer goes in the error.
    @discardableResult
    public func waitForExit(deadline: ContinuousClock.Instant,
                            hangReport: (() -> String)? = nil) async throws -> ChildTermination {
        let deadline = DeadlineScale.scaled(deadline)
        while true {
            poll()
            if let termination { return termination }
            guard ContinuousClock.now < deadline else {
                let report = hangReport?()
                kill(SIGKILL)
                throw error("still running at the deadline (killed)" + (report.map { ": \($0)" } ?? ""))
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until every child ends. At the deadline the ones still running are killed and this throws.
    public static func waitForAll(_ children: [ChildProcess], deadline: ContinuousClock.Instant) async throws {
        let deadline = DeadlineScale.scaled(deadline)
        while true {
            children.forEach { $0.poll() }
            let running = children.filter { $0.termination == nil }
            if running.isEmpty { return }
            guard ContinuousClock.now < deadline else {
                running.forEach { $0.kill(SIGKILL) }
                throw ChildProcessError(description: "\(running.count) of \(children.count) children still running at the deadline, e.g. "
                    + running[0].error("killed").description)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// An error naming this child, with its output so far.
    public func error(_ what: String) -> ChildProcessError {
        ChildProcessError(description: "\(commandLine.joined(separator: " ")) (pid \(pid)): \(what)\n"
            + "stdout: \(standardOutput)\nstderr: \(standardError)")
    }
}

// MARK: - The storage probe

extension ChildProcess {
    /// The `storage-probe` program, which `ci/test` builds beside the test executable.
    ///
    /// - Throws: `ChildProcessError` when it is not there (build with `swift build --build-tests` first;
    ///   a test never builds it itself, since a build inside `swift test` waits forever on the build lock).
    public static func storageProbe() throws -> URL {
        try builtProgram("storage-probe")
    }

    /// The program `name` (a probe or an app) that `ci/test` builds beside the test executable.
    ///
    /// - Throws: `ChildProcessError` when it is not there (build with `swift build --build-tests` first;
    ///   a test never builds it itself, since a build inside `swift test` waits forever on the build lock).
    public static func builtProgram(_ name: String) throws -> URL {
        let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let program = folder.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: program.path) else {
            throw ChildProcessError(description: "\(program.path) is missing: build it with `swift build --build-tests` (ci/test does)")
        }
        return program
    }

    /// A command line that runs what follows it as user and group 65534 (`nobody`) with no supplementary
    /// groups: `setpriv` if installed, else `runuser`; `nil` when neither is, or when this process is
    /// not root and so cannot switch users.
    public static let unprivilegedWrapper: [String]? = {
        guard getuid() == 0 else { return nil }
        let fm = FileManager.default
        if let setpriv = ["/usr/bin/setpriv", "/bin/setpriv", "/usr/sbin/setpriv"].first(where: fm.isExecutableFile(atPath:)) {
            return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        }
        if let runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].first(where: fm.isExecutableFile(atPath:)) {
            return [runuser, "-u", "nobody", "--"]
        }
        return nil
    }()
}

/// The exit codes of `storage-probe` (which links this module). A probe that fails with a `FileStorageError` prints `error: <case>` too.
public enum ProbeExit: Int32, Sendable {
    case success = 0
    case usage = 2
    case notFound = 10, corrupt, decodingFailed, encodingFailed, permissionDenied, diskFull, lockTimeout,
         symlinkOutsideFolder, io
    case otherError = 19

    /// How a probe that ended this way terminates.
    public var termination: ChildTermination { .exited(rawValue) }
}

/// The self-checking versions `storage-probe write-loop` writes (the probe links this too):
/// the payload of version `n` is a function of `n`, so a mix of two versions never checks out.
public enum ProbeSnapshot {
    /// The payload size of each `write-loop` version.
    public static let loopPayloadSize = 48 * 1024

    /// The payload of `version`.
    public static func payload(version: Int, size: Int = loopPayloadSize) -> Data {
        var data = Data(count: size)
        let seed = UInt64(bitPattern: Int64(version)) &* 0x9E37_79B9_7F4A_7C15
        data.withUnsafeMutableBytes { raw in
            // Word by word: cheap even in a debug build, and every word depends on the version and its offset.
            for offset in stride(from: 0, to: raw.count, by: 8) {
                let word = (seed ^ UInt64(offset)) &* 0xBF58_476D_1CE4_E5B9
                if offset + 8 <= raw.count {
                    raw.storeBytes(of: word.littleEndian, toByteOffset: offset, as: UInt64.self)
                } else {
                    for i in offset..<raw.count { raw[i] = UInt8(truncatingIfNeeded: word >> (8 * UInt64(i - offset))) }
                }
            }
        }
        return data
    }
}
