import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The power-loss harness (issue 34): a writer probe on a `lazyfs` mount, its power cut at a random
/// moment, and a check that every write it acknowledged survived.
///
/// Each cut mounts `lazyfs` (Docs/LazyFS.md) over the run's backing folder, at a mount point of its
/// own (`mount/cut-<n>`), starts the writer with the mount in its arguments, waits for its first
/// `acked <key> <value>` line, pauses a seeded random moment, kills it with SIGKILL, cuts the power
/// (SIGUSR1), waits for lazyfs to exit, and reads the backing folder, which then holds exactly what a
/// disk would after the crash. The store carries over from cut to cut, as a device's would. A key
/// must then hold its last acknowledged value or a later one (writers only write growing values; a
/// write in flight may or may not survive), and so must every value a previous cut found; a reader
/// that throws is corruption. Cuts rotate lazyfs's modes: nothing unsynced kept, a torn prefix kept,
/// a reordered subset kept.
///
/// ```swift
/// let temp = try TemporaryFolder(prefix: "power-durable")
/// defer { #expect(PowerCuts.mounts(under: temp.url).isEmpty) }
/// let run = try await PowerCuts(label: "DurableFile", writer: "storage-probe", in: temp)
///     .run(cuts: PowerCuts.cutCount(default: 25), arguments: { cut in ["power-writer", "durable", cut.mount.path, "\(cut.firstValue)"] },
///          read: { backing in try readValues(backing) })
/// #expect(run.losses.isEmpty, "\(run)")
/// ```
///
/// `TOOLKIT_POWER_SEED` replays a run's moments and lazyfs seeds (the writer's timing still varies);
/// `TOOLKIT_POWER_CUTS` sets the number of cuts; `TOOLKIT_POWER_MAX_DELAY_MS` the longest pause before a
/// cut; `TOOLKIT_LAZYFS` names the lazyfs program (`ci/test` sets it), else it is built once per test
/// process by `ci/build-lazyfs` into the build folder.
/// A run never leaves a mount behind: lazyfs is killed and, if need be, detached with
/// `fusermount3 -u -z` on every way out, failures included.
public struct PowerCuts: Sendable {
    /// Names the run in its messages.
    public let label: String
    /// The writer probe.
    public let writer: URL
    /// The backing folder: the store's durable state between mounts.
    public let backing: URL
    /// The folder of the mount points: each cut mounts lazyfs at a folder of its own in it
    /// (`PowerCut.mount`), never at one an earlier cut used. A mount point used again is shared with
    /// whatever an earlier cut left acting on it by name, such as the `auto_unmount` helper
    /// (`fusermount3`) of an earlier lazyfs, which unmounts its mount point once its lazyfs has gone.
    /// On a loaded machine something did detach a later cut's live mount, so the writer went on in the
    /// bare folder beneath and every write it acknowledged from then on was missing after the cut
    /// (twice: once in a clean-clone CI run, once in about 8,000 cuts of two power tests at a time
    /// beside the rest of the suite).
    public let mount: URL
    /// The longest pause between the writer's first acknowledgement and the cut:
    /// `TOOLKIT_POWER_MAX_DELAY_MS` when set (a campaign that looks for a fault near the start of a
    /// writer's work), else 300 ms.
    public var maxDelay: Duration = ProcessInfo.processInfo.environment["TOOLKIT_POWER_MAX_DELAY_MS"]
        .flatMap { Int($0) }.map { .milliseconds(max(0, $0)) } ?? .milliseconds(300)
    /// How long a mount, the writer's first acknowledgement or an exit may take.
    public var deadline: Duration = .seconds(180)
    /// Where a cut that loses something keeps its evidence (`keepEvidence(of:_:)`), one folder per cut:
    /// by default the temporary directory, which outlives the test's folder; `nil` keeps nothing (the
    /// harness's self-test, whose losses are expected).
    public var evidenceFolder: URL? = FileManager.default.temporaryDirectory

    /// A harness for the probe `writer` (built beside the tests), in `temp`'s folders `backing` and `mount`.
    public init(label: String, writer: String, in temp: TemporaryFolder) throws {
        self.label = label
        self.writer = try ChildProcess.builtProgram(writer)
        backing = temp.folder("backing")
        mount = temp.folder("mount")
        for folder in [backing, mount] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }

    // MARK: Availability, settings

    /// Why power-cut tests cannot run here (no `/dev/fuse`, no `fusermount3`), or `nil` when they can.
    public static let unavailableReason: String? = {
        guard access("/dev/fuse", R_OK | W_OK) == 0 else { return "/dev/fuse is missing or not usable" }
        guard fusermount != nil else { return "fusermount3 is not installed (Debian: fuse3)" }
        return nil
    }()

    /// Whether power-cut tests can run here (see `unavailableReason`).
    public static var isAvailable: Bool { unavailableReason == nil }

    static let fusermount: String? = ["/usr/bin/fusermount3", "/bin/fusermount3", "/usr/local/bin/fusermount3"]
        .first(where: FileManager.default.isExecutableFile(atPath:))

    /// `TOOLKIT_POWER_CUTS` when set, else `defaultCount`.
    public static func cutCount(default defaultCount: Int) -> Int {
        ProcessInfo.processInfo.environment["TOOLKIT_POWER_CUTS"].flatMap { Int($0) }.map { max(1, $0) } ?? defaultCount
    }

    /// `TOOLKIT_POWER_SEED` (decimal) when set, else a fresh seed; printed with `label` either way.
    public static func seed(label: String) -> UInt64 {
        let seed = ProcessInfo.processInfo.environment["TOOLKIT_POWER_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        print("\(label): power seed \(seed) (replay with TOOLKIT_POWER_SEED=\(seed))")
        return seed
    }

    // MARK: The run

    /// Cuts the power `cuts` times (fewer when `stopAtFirstLoss` and a cut loses something).
    ///
    /// With `measuringLoss` (a store that promises only consistency, such as SQLite at `.normal`), an
    /// acknowledged write missing after a cut is not a loss but a measure: each cut's shortfall (how
    /// far below the acknowledged value each key is, summed) goes into `shortfalls`, and the next cut
    /// starts from what survived. A store that does not open is a loss either way.
    ///
    /// With `freshStoreEvery` (cuts), the backing folder is emptied before every that many cuts and
    /// the store starts over: for a store whose checker reads everything, whose cost would otherwise
    /// grow with every cut (a 2,000-cut campaign then costs 20 times a 100-cut run, not 400 times).
    ///
    /// With `beforeWriter`, each cut runs it once lazyfs is mounted and before the writer starts: a
    /// test of what an earlier process left on the mount (`killedMaker(of:)`: a folder made by a
    /// process that died before flushing it).
    ///
    /// - Parameters:
    ///   - arguments: The writer's command line for a cut (its paths under `cut.mount`, its values from
    ///     `cut.firstValue` on, so they grow across cuts).
    ///   - read: The values of the store in the backing folder after a cut (no mount); a key it leaves
    ///     out was lost. Throwing means the store is corrupt, which counts as a loss.
    /// - Returns: What ran, with every loss; throws only when the harness itself fails (a mount, a
    ///   writer that ends by itself).
    public func run(cuts: Int, stopAtFirstLoss: Bool = false, measuringLoss: Bool = false, freshStoreEvery: Int? = nil,
                    beforeWriter: ((PowerCut) async throws -> Void)? = nil,
                    arguments: (PowerCut) -> [String],
                    read: (URL) async throws -> [String: Int]) async throws -> PowerCutRun {
        let seed = Self.seed(label: label)
        var rng = SeededGenerator(seed: seed)
        let maxMicroseconds = Int(maxDelay.components.seconds) * 1_000_000 + Int(maxDelay.components.attoseconds / 1_000_000_000_000)
        let lazyfs = try await LazyFSProgram.url()
        let started = ContinuousClock.now
        var floor: [String: Int] = [:]   // what each key must hold at least: acknowledged or found after a cut
        var losses: [String] = []
        var shortfalls: [Int] = []
        var acks = 0
        var done = 0
        for index in 1...cuts {
            if let every = freshStoreEvery, index > 1, (index - 1) % every == 0 {
                for name in try FileManager.default.contentsOfDirectory(atPath: backing.path) {
                    try FileManager.default.removeItem(at: backing.appendingPathComponent(name))
                }
                floor = [:]
            }
            let cut = PowerCut(label: label, index: index, seed: seed, lazyfsSeed: rng.next() >> 1,
                               torn: ["", "--torn=prefix", "--torn=reorder"][index % 3],
                               delayMicroseconds: rng.int(in: 0...maxMicroseconds),
                               mount: mount.appendingPathComponent("cut-\(index)", isDirectory: true), backing: backing)
            try FileManager.default.createDirectory(at: cut.mount, withIntermediateDirectories: true)
            let outcome = try await cutOnce(cut, lazyfs: lazyfs, beforeWriter: beforeWriter, arguments: arguments(cut))
            // Empty now (`cutOnce` took out whatever was written past the mount); a late actor on it
            // finds nothing to act on.
            rmdir(cut.mount.path)
            acks += outcome.count
            for (key, value) in outcome.acked { floor[key] = max(floor[key] ?? .min, value) }
            done = index
            var lost: [String] = []
            if let changed = outcome.mountChanged {
                lost.append("the mount was not lazyfs's any more when the power was cut: \(changed)")
            }
            if !outcome.escaped.isEmpty {
                lost.append("the writer wrote beside lazyfs, in the mount folder itself (the mount was gone): "
                            + outcome.escaped.joined(separator: ", "))
            }
            do {
                let found = try await read(backing)
                var shortfall = 0
                for (key, least) in floor.sorted(by: { $0.key < $1.key }) {
                    guard let value = found[key], value >= least else {
                        shortfall += least - (found[key] ?? 0)
                        if !measuringLoss {
                            lost.append("\(key): \(least) acknowledged or found before, \(found[key].map { "\($0)" } ?? "nothing") after the cut")
                        }
                        continue
                    }
                }
                shortfalls.append(shortfall)
                if measuringLoss {
                    floor = found
                } else {
                    for (key, value) in found { floor[key] = max(floor[key] ?? .min, value) }
                }
            } catch {
                lost.append("the store does not open: \(error)")
            }
            if !lost.isEmpty {
                if let evidenceFolder { lost.append(keepEvidence(of: cut, outcome, in: evidenceFolder)) }
                losses.append("\(cut): " + lost.joined(separator: "; "))
                print("\(cut): LOST " + lost.joined(separator: "; "))
                if stopAtFirstLoss { break }
            }
        }
        let run = PowerCutRun(label: label, seed: seed, cuts: done, acknowledged: acks, losses: losses,
                              shortfalls: shortfalls, measuredLoss: measuringLoss, elapsed: ContinuousClock.now - started)
        print("\(run)")
        return run
    }

    /// What one cut left: the writer's acknowledgements, and what explains a loss.
    struct CutOutcome {
        /// The last value acknowledged for each key.
        var acked: [String: Int]
        /// How many acknowledgements there were.
        var count: Int
        /// What lazyfs printed on standard error (its mount and power-cut lines).
        var lazyfsLog: String
        /// Everything the writer printed.
        var writerOutput: String
        /// Entries found in the mount folder itself once lazyfs was gone: writes that missed the mount.
        var escaped: [String]
        /// What the mount turned into while the writer ran, when it was not lazyfs's any more.
        var mountChanged: String?
    }

    /// lazyfs's `--trace` of the current cut: every change, sync and read it served, and the durable
    /// state it loaded and left. Rewritten each cut; kept only for a cut that lost something.
    var tracePath: URL { backing.deletingLastPathComponent().appendingPathComponent("lazyfs-trace.log") }

    /// Copies what explains a loss (lazyfs's trace and output, the writer's output, the backing folder
    /// as the cut left it) to a folder of its own in `parent`; returns a sentence that says where,
    /// with lazyfs's last line.
    func keepEvidence(of cut: PowerCut, _ outcome: CutOutcome, in parent: URL) -> String {
        let name = "power-loss-\(label.filter { $0.isLetter || $0.isNumber })-\(cut.seed)-cut\(cut.index)-\(getpid())"
        let folder = parent.appendingPathComponent(name, isDirectory: true)
        let manager = FileManager.default
        try? manager.removeItem(at: folder)
        try? manager.createDirectory(at: folder, withIntermediateDirectories: true)
        try? manager.copyItem(at: tracePath, to: folder.appendingPathComponent("lazyfs-trace.log"))
        try? manager.copyItem(at: backing, to: folder.appendingPathComponent("backing", isDirectory: true))
        try? Data(outcome.lazyfsLog.utf8).write(to: folder.appendingPathComponent("lazyfs-stderr.log"))
        try? Data(outcome.writerOutput.utf8).write(to: folder.appendingPathComponent("writer-output.log"))
        let last = outcome.lazyfsLog.split(separator: "\n").last.map(String.init) ?? "nothing"
        return "lazyfs said: \(last); its trace, its output, the writer's output and the backing folder are in \(folder.path)"
    }

    /// One mount, writer, kill and power cut.
    private func cutOnce(_ cut: PowerCut, lazyfs: URL, beforeWriter: ((PowerCut) async throws -> Void)?,
                         arguments: [String]) async throws -> CutOutcome {
        // `--die-with-parent`: a test process that is killed (a CI timeout, a Ctrl-C) runs no teardown,
        // so lazyfs itself stops and unmounts once it sees its parent gone.
        let server = try ChildProcess.start(lazyfs, ["--backing", backing.path, "--mount", cut.mount.path,
                                                     "--seed", "\(cut.lazyfsSeed)", "--trace", tracePath.path,
                                                     "--die-with-parent"]
                                                    + (cut.torn.isEmpty ? [] : [cut.torn]))
        // Every way out leaves no mount: lazyfs killed (its `auto_unmount` helper detaches the mount),
        // then `fusermount3 -u -z` for whatever is left.
        defer { if server.termination == nil { server.kill(SIGKILL) }; Self.detach(cut.mount) }
        _ = try await server.waitForLine(deadline: .now + deadline) { $0 == "ready" }
        let mounted = Self.fileSystem(at: cut.mount)
        guard mounted.isFUSE else { throw server.error("\(cut): lazyfs said ready, but \(cut.mount.path) is \(mounted)") }
        if let beforeWriter { try await beforeWriter(cut) }
        let child = try ChildProcess.start(writer, arguments)
        defer { if child.termination == nil { child.kill(SIGKILL) } }
        _ = try await child.waitForLine(deadline: .now + deadline) { $0.hasPrefix("acked ") }
        // This pause is the point of the test, not a wait for a condition: it picks the moment of the cut.
        try await Task.sleep(for: .microseconds(cut.delayMicroseconds))
        child.kill(SIGKILL)
        let end = try await child.waitForExit(deadline: .now + deadline)
        guard end == .signaled(SIGKILL) else { throw child.error("\(cut): the writer ended by itself (\(end))") }
        // The writer worked on this cut's lazyfs only if the mount is still the one it started on.
        let atTheCut = Self.fileSystem(at: cut.mount)
        server.kill(SIGUSR1)
        let serverEnd = try await Self.waitForExit(of: server, deadline: .now + deadline, what: "\(cut): lazyfs after the power cut")
        guard serverEnd == .exited(0) else { throw server.error("\(cut): lazyfs ended with \(serverEnd) at the power cut") }
        var acked: [String: Int] = [:]
        var count = 0
        for line in child.outputLines where line.hasPrefix("acked ") {
            count += 1
            let words = line.split(separator: " ")
            guard words.count == 3, let value = Int(words[2]) else { throw child.error("\(cut): malformed line '\(line)'") }
            acked[String(words[1])] = value
        }
        // lazyfs has unmounted: anything in the mount folder now was written past the mount.
        let escaped = Self.mounts(under: cut.mount).isEmpty
            ? (try? FileManager.default.contentsOfDirectory(atPath: cut.mount.path)) ?? [] : []
        for name in escaped { try? FileManager.default.removeItem(at: cut.mount.appendingPathComponent(name)) }
        return CutOutcome(acked: acked, count: count, lazyfsLog: server.standardError,
                          writerOutput: child.standardOutput, escaped: escaped.sorted(),
                          mountChanged: atTheCut == mounted ? nil : "\(mounted) when lazyfs was ready, \(atTheCut) at the cut")
    }

    /// Makes `folder` (and its missing parents) the way a process that dies at the wrong moment
    /// leaves it: `storage-probe mkdir-and-hang` makes each with a bare `mkdir`, no `fsync`, says
    /// `made`, and is killed with SIGKILL. On a lazyfs mount the folders are then there for every
    /// process, and gone after a power cut unless someone flushes their parents.
    public static func killedMaker(of folder: URL, deadline: Duration = .seconds(60)) async throws {
        let maker = try ChildProcess.start(try ChildProcess.builtProgram("storage-probe"), ["mkdir-and-hang", folder.path])
        defer { if maker.termination == nil { maker.kill(SIGKILL) } }
        _ = try await maker.waitForLine(deadline: .now + deadline) { $0 == "made" }
        maker.kill(SIGKILL)
        let end = try await maker.waitForExit(deadline: .now + deadline)
        guard end == .signaled(SIGKILL) else { throw maker.error("mkdir-and-hang \(folder.path) ended with \(end), not SIGKILL") }
    }

    /// The file system a path is on: its device, and whether a FUSE mount is there.
    struct FileSystem: Equatable, CustomStringConvertible {
        var device: UInt64
        var isFUSE: Bool
        var description: String { "device \(device) (\(isFUSE ? "FUSE" : "not FUSE"))" }
    }

    /// `url`'s device (`stat`; 0 when it fails), and whether `/proc/mounts` lists a FUSE mount there.
    static func fileSystem(at url: URL) -> FileSystem {
        var info = stat()
        let device = stat(url.path, &info) == 0 ? UInt64(info.st_dev) : 0
        return FileSystem(device: device, isFUSE: mounts(under: url).contains(url.standardizedFileURL.path))
    }

    /// Runs `program` (a probe built beside the tests) with `arguments` to read a store after a cut:
    /// every `value <key> <n>` line it prints is a key's value; any exit but 0 means the store did not
    /// open or was damaged, and throws with the probe's output.
    public static func probeValues(_ program: String, _ arguments: [String],
                                   deadline: Duration = .seconds(180)) async throws -> [String: Int] {
        let child = try ChildProcess.start(try ChildProcess.builtProgram(program), arguments)
        let end = try await child.waitForExit(deadline: .now + deadline)
        guard end == .exited(0) else { throw child.error("the checker ended with \(end)") }
        var values: [String: Int] = [:]
        for line in child.outputLines where line.hasPrefix("value ") {
            let words = line.split(separator: " ")
            guard words.count == 3, let value = Int(words[2]) else { throw child.error("malformed line '\(line)'") }
            values[String(words[1])] = value
        }
        return values
    }

    // MARK: Mounts

    /// The FUSE mounts at or under `folder` listed in `/proc/mounts` (a teardown expects none).
    public static func mounts(under folder: URL) -> [String] {
        guard let table = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8) else { return [] }
        let prefix = folder.standardizedFileURL.path
        return table.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count >= 3, fields[2].hasPrefix("fuse") else { return nil }
            // /proc/mounts escapes spaces and the like as octal; temporary folders have none.
            let point = String(fields[1])
            return point == prefix || point.hasPrefix(prefix + "/") ? point : nil
        }
    }

    /// Waits for `child` to end; at the deadline, says where in the kernel each of its threads (and
    /// each of its children) waits, then kills it and throws: a hang is then a report, not a riddle.
    static func waitForExit(of child: ChildProcess, deadline: ContinuousClock.Instant,
                            what: String) async throws -> ChildTermination {
        try await child.waitForExit(deadline: deadline, hangReport: { "\(what); where it waited:\n\(whereItWaits(child.pid))" })
    }

    /// Each thread's state, kernel wait channel, system call and kernel stack (when readable), and the
    /// same for its child processes, from `/proc`.
    static func whereItWaits(_ pid: pid_t, depth: Int = 0) -> String {
        func read(_ path: String) -> String {
            ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let indent = String(repeating: "  ", count: depth)
        var lines = ["\(indent)pid \(pid) \(read("/proc/\(pid)/cmdline").replacingOccurrences(of: "\0", with: " "))"]
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks.sorted() {
            let base = "/proc/\(pid)/task/\(task)"
            let state = read(base + "/status").split(separator: "\n").first { $0.hasPrefix("State:") } ?? "State: ?"
            lines.append("\(indent)  thread \(task): \(state), wchan \(read(base + "/wchan")), syscall \(read(base + "/syscall"))")
            let stack = read(base + "/stack")
            if stack != "?" && !stack.isEmpty {
                lines.append(contentsOf: stack.split(separator: "\n").prefix(12).map { "\(indent)    \($0)" })
            }
        }
        if depth < 2 {
            for task in tasks {
                for child in read("/proc/\(pid)/task/\(task)/children").split(separator: " ") {
                    if let childPID = pid_t(child) { lines.append(whereItWaits(childPID, depth: depth + 1)) }
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Detaches a mount still at `mount` with `fusermount3 -u -z`; does nothing when there is none.
    static func detach(_ mount: URL) {
        guard !mounts(under: mount).isEmpty, let fusermount else { return }
        // Blocking, but only on a failure path and for a moment: a lazy unmount does not wait for users.
        guard let child = try? ChildProcess.start(URL(fileURLWithPath: fusermount), ["-u", "-z", mount.path]) else { return }
        for _ in 0..<500 where child.termination == nil {
            child.poll()
            usleep(10_000)
        }
    }
}

/// One power cut, as `PowerCuts` plans it.
public struct PowerCut: Sendable, CustomStringConvertible {
    public let label: String
    /// 1 for the first cut.
    public let index: Int
    /// The run's seed.
    public let seed: UInt64
    /// The seed lazyfs gets (`--seed`): what a torn cut keeps.
    public let lazyfsSeed: UInt64
    /// lazyfs's tearing option for this cut, empty for none.
    public let torn: String
    /// How long after the writer's first acknowledgement the cut comes.
    public let delayMicroseconds: Int
    /// The mount, where the writer works.
    public let mount: URL
    /// The backing folder, what the checker reads.
    public let backing: URL

    /// The first value the writer should write: above every value of the cuts before.
    public var firstValue: Int { index * 10_000_000 }

    public var description: String {
        "\(label): cut \(index) of seed \(seed) (TOOLKIT_POWER_SEED=\(seed)), lazyfs --seed \(lazyfsSeed) \(torn.isEmpty ? "untorn" : torn), "
            + "\(delayMicroseconds) µs after the first ack"
    }
}

/// What a `PowerCuts` run did.
public struct PowerCutRun: Sendable, CustomStringConvertible {
    public let label: String
    /// The seed that replays it.
    public let seed: UInt64
    /// How many cuts ran.
    public let cuts: Int
    /// How many writes the writers acknowledged over all cuts.
    public let acknowledged: Int
    /// Each cut that lost an acknowledged write or found the store corrupt, with what it lost.
    public let losses: [String]
    /// For each cut whose store opened, how far below the acknowledged values it came back (summed
    /// over keys; for a writer that counts its commits, the commits lost). All zero unless writes were lost.
    public let shortfalls: [Int]
    /// Whether the run measured what cuts lose (`measuringLoss`) rather than requiring that they lose nothing.
    public let measuredLoss: Bool
    /// How long the run took.
    public let elapsed: Duration

    /// The cuts that lost acknowledged writes, and the most one cut lost.
    public var shortfallSummary: String {
        let hit = shortfalls.filter { $0 > 0 }
        let mean = hit.isEmpty ? 0 : Double(hit.reduce(0, +)) / Double(hit.count)
        return "\(hit.count) of \(shortfalls.count) cuts lost acknowledged writes (at most \(shortfalls.max() ?? 0), "
            + "\(String(format: "%.1f", mean)) on average when any)"
    }

    public var description: String {
        "\(label): \(cuts) power cuts, \(acknowledged) acknowledged writes, \(losses.count) cuts with losses, "
            + (measuredLoss ? "\(shortfallSummary), " : "") + "in \(elapsed), seed \(seed)"
    }
}

/// The `lazyfs` program: `TOOLKIT_LAZYFS`, else built once per process by `ci/build-lazyfs` (plain C,
/// about a second) into `lazyfs/` of the build folder. Never a `swift build`.
enum LazyFSProgram {
    static func url() async throws -> URL { try await build.value }

    private static let build = Task<URL, any Error> {
        if let path = ProcessInfo.processInfo.environment["TOOLKIT_LAZYFS"], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw ChildProcessError(description: "TOOLKIT_LAZYFS=\(path) is not an executable")
            }
            return URL(fileURLWithPath: path)
        }
        let buildFolder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let out = buildFolder.appendingPathComponent("lazyfs", isDirectory: true)
        let program = out.appendingPathComponent("lazyfs")
        // This file is Tests/TestSupport/Processes/PowerCuts.swift: three folders below the package.
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let script = package.appendingPathComponent("ci/build-lazyfs")
        let builder = try ChildProcess.start(URL(fileURLWithPath: "/bin/bash"), [script.path, out.path])
        let end = try await builder.waitForExit(deadline: .now + .seconds(600))
        guard end == .exited(0), FileManager.default.isExecutableFile(atPath: program.path) else {
            throw builder.error("ci/build-lazyfs failed (\(end))")
        }
        return program
    }
}
