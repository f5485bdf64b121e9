import Foundation
import Testing
import FileStorageKit
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 3, item 1: a writer killed with SIGKILL at a random moment leaves one complete version.
///
/// Each trial starts a fresh `storage-probe write-loop`, which continues from the version on disk
/// and writes 48 KB versions through `PlistFileStorage` as fast as it can (binary, and XML every
/// fourth trial); once it reports its first version done, the test waits a random 0–30 ms (the kill
/// moment) and kills it. The file must then decode as one complete, self-consistent version, never
/// older than one already seen. Temporary files a killed write leaves behind stay, and must never
/// be taken for the file. `CRASH_TEST_SEED=<n>` replays a run's kill moments.
@Suite struct CrashTests {
    /// One version as `write-loop` writes it.
    struct LoopVersion: Codable {
        var version: Int
        var payload: Data

        /// A complete version `version`.
        init(version: Int) {
            self.version = version
            payload = ProbeSnapshot.payload(version: version)
        }
    }

    static let trials = 200
    static let fileName = "state.plist"

    /// The seed: `CRASH_TEST_SEED` (decimal) replays a run; otherwise a fresh one, printed.
    static func seed() -> UInt64 {
        ProcessInfo.processInfo.environment["CRASH_TEST_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
    }

    @Test func killedWriterLeavesOneCompleteVersion() async throws {
        let probe = try ChildProcess.storageProbe()
        let temp = try TemporaryFolder(prefix: "crash")
        let folder = temp.url
        let file = folder.appendingPathComponent(Self.fileName)
        let seed = Self.seed()
        var rng = SeededGenerator(seed: seed)
        print("CrashTests: seed \(seed) (replay with CRASH_TEST_SEED=\(seed)); \(Self.trials) trials in \(folder.path)")

        let started = ContinuousClock.now
        var lastSeen = 0
        var midWrite = 0
        var temporaries: Set<String> = []
        for trial in 1...Self.trials {
            let pauseMicroseconds = rng.int(in: 0...30_000)
            // Mostly binary, which a debug build encodes fast, so more kills land inside the write itself.
            let format = trial % 4 == 0 ? "xml" : "binary"
            let child = try ChildProcess.start(probe, ["write-loop", file.path, format])
            let ready = try await child.waitForLine(deadline: .now + .seconds(30)) { $0.hasPrefix("ready ") }
            let readyVersion = try #require(Int(ready.dropFirst("ready ".count)), "trial \(trial): \(ready)")
            // This pause is the point of the test, not a wait for a condition: it picks the kill moment.
            try await Task.sleep(for: .microseconds(pauseMicroseconds))
            child.kill(SIGKILL)
            let end = try await child.waitForExit(deadline: .now + .seconds(30))
            try #require(end == .signaled(SIGKILL), "trial \(trial): the writer ended by itself: \(child.error("\(end)"))")

            let context = "trial \(trial) (\(format)) of seed \(seed), killed \(pauseMicroseconds) µs after version \(readyVersion)"
            let loaded: LoopVersion
            do {
                loaded = try PlistFileStorage().data(for: file)
            } catch {
                Issue.record("\(context): the file does not decode: \(error)")
                return
            }
            #expect(loaded.payload == ProbeSnapshot.payload(version: loaded.version),
                    "\(context): version \(loaded.version) holds another version's payload")
            #expect(loaded.version >= readyVersion, "\(context): version \(loaded.version) is older than the one reported done")
            #expect(loaded.version >= lastSeen, "\(context): version \(loaded.version) went back from \(lastSeen)")
            lastSeen = max(lastSeen, loaded.version)

            let entries = try temp.entries()
            let newTemporaries = Set(entries.filter { $0.hasPrefix(".\(Self.fileName).tmp-") }).subtracting(temporaries)
            temporaries.formUnion(newTemporaries)
            // A temporary file left behind shows the kill landed between its creation and the rename.
            if !newTemporaries.isEmpty { midWrite += 1 }
            #expect(newTemporaries.count <= 1 && newTemporaries.allSatisfy { $0.hasPrefix(".\(Self.fileName).tmp-\(child.pid)-") },
                    "\(context): temporary files not from this writer's last write: \(newTemporaries)")
            let unexpected = entries.filter {
                $0 != Self.fileName && $0 != ".\(Self.fileName).lock" && !$0.hasPrefix(".\(Self.fileName).tmp-")
            }
            #expect(unexpected.isEmpty, "\(context): unexpected files \(unexpected)")
            #expect(entries.contains(".\(Self.fileName).lock"), "\(context): the lock sidecar is gone")
        }

        // The leftovers are only temporary files: the file still reads, and a new write succeeds beside them.
        let leftovers = try temp.entries().filter { $0.hasPrefix(".\(Self.fileName).tmp-") }
        #expect(leftovers.count == midWrite)
        let elapsed = ContinuousClock.now - started
        print("CrashTests: \(Self.trials) kills in \(elapsed); \(midWrite) landed mid-write (a temporary file left behind); "
            + "last version \(lastSeen)")
        #expect(lastSeen >= Self.trials, "every trial writes at least one version")
        try await PlistFileStorage().async.update(at: file, default: LoopVersion(version: 0)) { $0 = LoopVersion(version: $0.version + 1) }
        let final: LoopVersion = try PlistFileStorage().data(for: file)
        #expect(final.version == lastSeen + 1)
    }
}
