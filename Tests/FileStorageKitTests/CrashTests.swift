import Foundation
import Testing
import FileStorageKit
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 3, item 1: a writer killed with SIGKILL at a random moment leaves one complete version.
/// Issue 11, item 6: the temporary file a killed write leaves is removed by the next write.
///
/// Each trial starts a fresh `storage-probe write-loop` (through `ProcessFaults`), which continues
/// from the version on disk and writes 48 KB versions through `PlistFileStorage` as fast as it can
/// (binary, and XML every fourth trial); once it reports its first version done, the harness waits a
/// random 0–30 ms (the kill moment) and kills it. The file must then decode as one complete,
/// self-consistent version, never older than one already seen. A kill inside a write leaves that
/// writer's temporary file; the next writer's first write removes it. `CRASH_TEST_SEED=<n>` replays
/// a run's kill moments.
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

    @Test func killedWriterLeavesOneCompleteVersion() async throws {
        let faults = try ProcessFaults(program: "storage-probe", deadline: .seconds(30))
        let temp = try TemporaryFolder(prefix: "crash")
        let file = temp.file(Self.fileName)
        let temporaryPrefix = ".\(Self.fileName).tmp-"
        print("CrashTests: \(Self.trials) trials in \(temp.url.path)")

        var lastSeen = 0
        var midWrite = 0
        // Mostly binary, which a debug build encodes fast, so more kills land inside the write itself.
        let run = try await faults.killAtRandomMoments(label: "CrashTests", trials: Self.trials, arguments: { trial in
            ["write-loop", file.path, trial % 4 == 0 ? "xml" : "binary"]
        }) { kill in
            let readyVersion = try #require(kill.readyNumber, "\(kill)")
            let loaded: LoopVersion
            do {
                loaded = try PlistFileStorage().data(for: file)
            } catch {
                Issue.record("\(kill): the file does not decode: \(error)")
                return
            }
            #expect(loaded.payload == ProbeSnapshot.payload(version: loaded.version),
                    "\(kill): version \(loaded.version) holds another version's payload")
            #expect(loaded.version >= readyVersion, "\(kill): version \(loaded.version) is older than the one reported done")
            #expect(loaded.version >= lastSeen, "\(kill): version \(loaded.version) went back from \(lastSeen)")
            lastSeen = max(lastSeen, loaded.version)

            // Earlier writers' leftovers are gone (this writer's first write removed them); only the
            // killed writer's own temporary file may be here, when the kill landed inside a write.
            let entries = try temp.entries()
            let temporaries = entries.filter { $0.hasPrefix(temporaryPrefix) }
            if !temporaries.isEmpty { midWrite += 1 }
            #expect(temporaries.count <= 1 && temporaries.allSatisfy { $0.hasPrefix("\(temporaryPrefix)\(kill.pid)-") },
                    "\(kill): temporary files not from this writer's last write: \(temporaries)")
            let unexpected = entries.filter {
                $0 != Self.fileName && $0 != ".\(Self.fileName).lock" && !$0.hasPrefix(temporaryPrefix)
            }
            #expect(unexpected.isEmpty, "\(kill): unexpected files \(unexpected)")
            #expect(entries.contains(".\(Self.fileName).lock"), "\(kill): the lock sidecar is gone")
        }

        print("\(run); \(midWrite) kills landed mid-write (a temporary file left behind); last version \(lastSeen)")
        #expect(lastSeen >= Self.trials, "every trial writes at least one version")
        // About 40% of kills land inside a write; with none, the cleanup above went untested.
        #expect(midWrite > 0, "no kill landed inside a write (seed \(run.seed))")
        // The next write succeeds beside the last leftover and removes it.
        try await PlistFileStorage().async.update(at: file, default: LoopVersion(version: 0)) { $0 = LoopVersion(version: $0.version + 1) }
        let final: LoopVersion = try PlistFileStorage().data(for: file)
        #expect(final.version == lastSeen + 1)
        #expect(try temp.entries().sorted() == [".\(Self.fileName).lock", Self.fileName])
    }
}
