import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One harness for every store's crash, contention and fault tests, driving a probe program.
///
/// A store's tests name its probe (a child process that `ci/test` builds, taking `ProbeOptions`
/// before its own command) and say what to check; the harness does the rest the same way for every
/// store: start processes together, kill them at random moments with a printed, replayable seed,
/// limit the file size, or run them as an unprivileged user.
///
/// ```swift
/// let faults = try ProcessFaults(program: "collection-probe")
/// // N processes × M increments, released together:
/// let children = try await faults.runTogether(Array(repeating: ["increment", path, "250"], count: 4))
/// #expect(try ProcessFaults.incrementValues(children).sorted() == Array(1...1000))
/// // SIGKILL at random moments:
/// try await faults.killAtRandomMoments(label: "items", trials: 200, arguments: { _ in ["create-loop", path, "1"] }) { kill in
///     #expect(fileDecodes(), "\(kill)")
/// }
/// // Disk full, read-only folder:
/// let full = try await faults.runWithFileSizeLimit(8192, ["write-large", path])
/// let denied = try await faults.runUnprivileged(["write", path])     // skip the test when `canRunUnprivileged` is false
/// ```
public struct ProcessFaults: Sendable {
    /// The probe program.
    public let program: URL
    /// How long one batch, trial or run may take before its stragglers are killed and the test fails
    /// (for a batch: to start, and again to work, since a loaded test process may start children slowly).
    public var deadline: Duration

    /// The probe `name`, built by `ci/test` beside the test executable.
    public init(program name: String, deadline: Duration = .seconds(300)) throws {
        program = try ChildProcess.builtProgram(name)
        self.deadline = deadline
    }

    // MARK: Contention

    /// Starts one probe per argument list, releases them together once every one is running, waits
    /// for all, and requires each to exit 0 (`requireSuccess`).
    ///
    /// Each probe gets `--start-after GATE`, prints `waiting`, and starts its work when the gate file
    /// appears, so the processes contend for real instead of starting one after another.
    @discardableResult
    public func runTogether(_ argumentLists: [[String]], requireSuccess: Bool = true) async throws -> [ChildProcess] {
        let gates = try TemporaryFolder(prefix: "faults-gate")
        let gate = gates.file("go")
        let started = ContinuousClock.now
        let startEnd = started + deadline
        var children: [ChildProcess] = []
        for arguments in argumentLists {
            children.append(try ChildProcess.start(program, [ProbeOptions.startAfterFlag, gate.path] + arguments))
        }
        for child in children { _ = try await child.waitForLine(deadline: startEnd) { $0 == "waiting" } }
        let released = ContinuousClock.now
        guard FileManager.default.createFile(atPath: gate.path, contents: nil) else {
            throw ChildProcessError(description: "cannot create the start gate \(gate.path)")
        }
        try await ChildProcess.waitForAll(children, deadline: released + deadline)
        withExtendedLifetime(gates) {}   // the gate must stay until every child has passed it
        if requireSuccess {
            for child in children where child.termination != .exited(0) {
                throw child.error("ended with \(child.termination.map { "\($0)" } ?? "nothing")")
            }
        }
        print("ProcessFaults: \(children.count) × \(program.lastPathComponent) \(argumentLists.first?.first ?? ""): "
            + "started in \(released - started), worked in \(ContinuousClock.now - released)")
        return children
    }

    /// Every value the children reported on a `values v1 v2 ...` line, requiring each child's own to rise.
    public static func incrementValues(_ children: [ChildProcess], linePrefix: String = "values") throws -> [Int] {
        var all: [Int] = []
        for child in children {
            guard let line = child.outputLines.first(where: { $0.hasPrefix(linePrefix) }) else {
                throw child.error("no '\(linePrefix)' line")
            }
            let values = line.split(separator: " ").dropFirst().compactMap { Int($0) }
            guard values == values.sorted(), Set(values).count == values.count else {
                throw child.error("its own increments do not rise: \(values.prefix(20))...")
            }
            all += values
        }
        return all
    }

    // MARK: Kills

    /// The seed for random kill moments: `CRASH_TEST_SEED` (decimal) replays a run; otherwise a fresh
    /// one. Printed with `label` either way.
    public static func crashSeed(label: String) -> UInt64 {
        let seed = ProcessInfo.processInfo.environment["CRASH_TEST_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        print("\(label): crash seed \(seed) (replay with CRASH_TEST_SEED=\(seed))")
        return seed
    }

    /// Starts the probe `trials` times; each time waits for its ready line, pauses a random moment
    /// up to `maxPause` (the kill moment), kills it with SIGKILL, and calls `check`.
    ///
    /// The probe must not end by itself before the kill (a write loop); `check` sees what it left.
    /// - Returns: The summary, with the seed that replays it.
    @discardableResult
    public func killAtRandomMoments(label: String, trials: Int, maxPause: Duration = .milliseconds(30),
                                    arguments: (_ trial: Int) -> [String],
                                    ready: @escaping (String) -> Bool = { $0.hasPrefix("ready ") },
                                    check: (KilledProbe) async throws -> Void) async throws -> KillRun {
        let seed = Self.crashSeed(label: label)
        var rng = SeededGenerator(seed: seed)
        let started = ContinuousClock.now
        let maxMicroseconds = Int(maxPause.components.seconds) * 1_000_000 + Int(maxPause.components.attoseconds / 1_000_000_000_000)
        for trial in 1...trials {
            let pause = rng.int(in: 0...maxMicroseconds)
            let child = try ChildProcess.start(program, arguments(trial))
            let line = try await child.waitForLine(deadline: .now + deadline, where: ready)
            // This pause is the point of the test, not a wait for a condition: it picks the kill moment.
            try await Task.sleep(for: .microseconds(pause))
            child.kill(SIGKILL)
            let end = try await child.waitForExit(deadline: .now + deadline)
            guard end == .signaled(SIGKILL) else { throw child.error("trial \(trial) of seed \(seed): ended by itself (\(end))") }
            try await check(KilledProbe(label: label, trial: trial, seed: seed, pauseMicroseconds: pause,
                                        readyLine: line, pid: child.pid, outputLines: child.outputLines))
        }
        let run = KillRun(label: label, seed: seed, trials: trials, elapsed: ContinuousClock.now - started)
        print("\(run)")
        return run
    }

    // MARK: Disk full and read-only folders

    /// Runs the probe with `RLIMIT_FSIZE = bytes` (SIGXFSZ ignored, so a larger write fails with
    /// EFBIG, the kernel's disk-full error for one process) and waits for it to end.
    ///
    /// The limit applies to the child only: setting it in the test runner would limit every test.
    public func runWithFileSizeLimit(_ bytes: Int, _ arguments: [String]) async throws -> ChildProcess {
        let child = try ChildProcess.start(program, [ProbeOptions.fileSizeLimitFlag, "\(bytes)"] + arguments)
        try await child.waitForExit(deadline: .now + deadline)
        return child
    }

    /// Whether `runUnprivileged` can work here: the tests run as root (CI does), with `setpriv` or `runuser`.
    ///
    /// Root ignores mode bits, so a read-only folder is only read-only to another user.
    public static var canRunUnprivileged: Bool { ChildProcess.unprivilegedWrapper != nil }

    /// Runs the probe as user and group 65534 (`nobody`) and waits for it to end.
    public func runUnprivileged(_ arguments: [String]) async throws -> ChildProcess {
        guard let wrapper = ChildProcess.unprivilegedWrapper else {
            throw ChildProcessError(description: "cannot run \(program.path) unprivileged: not root, or no setpriv/runuser")
        }
        let child = try ChildProcess.start(program, arguments, wrapper: wrapper)
        try await child.waitForExit(deadline: .now + deadline)
        return child
    }

    /// Makes `folder` (under `temp`) and `files` in it read-only to everyone but root, and opens the
    /// path to it for others to search, so an unprivileged probe reaches it and is refused there.
    public static func makeReadOnly(_ folder: URL, files: [URL], in temp: TemporaryFolder) throws {
        // TemporaryFolder makes its folder 0700, which the unprivileged user cannot enter.
        guard chmod(temp.url.path, 0o755) == 0 else { throw faultError("chmod \(temp.url.path)") }
        for file in files {
            guard chown(file.path, 0, 0) == 0, chmod(file.path, 0o444) == 0 else { throw faultError("chown/chmod \(file.path)") }
        }
        guard chown(folder.path, 0, 0) == 0, chmod(folder.path, 0o555) == 0 else { throw faultError("chown/chmod \(folder.path)") }
        var parent = folder.deletingLastPathComponent()
        while parent.path != "/" {
            var info = stat()
            guard stat(parent.path, &info) == 0, info.st_mode & 0o001 != 0 else {
                throw ChildProcessError(description: "\(parent.path) is not searchable by others: an unprivileged probe cannot reach \(folder.path)")
            }
            parent = parent.deletingLastPathComponent()
        }
    }

    private static func faultError(_ what: String) -> ChildProcessError {
        ChildProcessError(description: "\(what) failed: errno \(errno)")
    }
}

/// One killed probe, as `ProcessFaults.killAtRandomMoments` hands it to the check.
public struct KilledProbe: Sendable, CustomStringConvertible {
    /// The run's label.
    public let label: String
    /// 1 for the first trial.
    public let trial: Int
    /// The run's seed.
    public let seed: UInt64
    /// How long after the ready line the kill came.
    public let pauseMicroseconds: Int
    /// The probe's ready line (e.g. `ready 17`).
    public let readyLine: String
    /// The killed process.
    public let pid: pid_t
    /// Every line the probe printed before it was killed (what it reported as done).
    public var outputLines: [String] = []

    /// The number after the ready line's first word, if any (`ready 17` gives 17).
    public var readyNumber: Int? { readyLine.split(separator: " ").dropFirst().first.flatMap { Int($0) } }

    /// Names the trial and how to replay it, for failure messages.
    public var description: String {
        "\(label): trial \(trial) of seed \(seed) (CRASH_TEST_SEED=\(seed)), pid \(pid) killed \(pauseMicroseconds) µs after '\(readyLine)'"
    }
}

/// What a kill run did.
public struct KillRun: Sendable, CustomStringConvertible {
    /// The run's label.
    public let label: String
    /// The seed that replays the run.
    public let seed: UInt64
    /// How many probes were killed.
    public let trials: Int
    /// How long the run took.
    public let elapsed: Duration

    public var description: String { "\(label): \(trials) kills in \(elapsed), seed \(seed)" }
}
