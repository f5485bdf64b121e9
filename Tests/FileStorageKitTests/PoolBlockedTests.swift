import Foundation
import Testing
import TestSupport

/// Another process's change reaches a `DefaultsSuite`, a `@PersistedModel` and a `DataPersistence`
/// while every thread of the cooperative pool is blocked: deliveries come from the inotify thread
/// through FileStorageKit's change thread, never from a task. The watching side runs in its own
/// process (`pool-probe watch`), since blocking this test runner's pool would stall other tests.
@Suite struct PoolBlockedTests {
    @Test func changesFromAnotherProcessArriveWhileThePoolIsBlocked() async throws {
        let temp = try TemporaryFolder(prefix: "pool-blocked")
        let probe = try ChildProcess.builtProgram("pool-probe")
        let watcher = try ChildProcess.start(probe, ["watch", temp.url.path])
        let ready = try await watcher.waitForLine(deadline: .now + .seconds(180)) { $0.hasPrefix("ready") }
        let fields = Dictionary(uniqueKeysWithValues: ready.split(separator: " ").dropFirst().map {
            let pair = $0.split(separator: "=")
            return (String(pair[0]), Int(pair[1]) ?? -1)
        })
        // Every pool thread is held: as many blocked tasks started as the pool has threads.
        #expect(fields["blocked"] == fields["cores"], "\(ready)")

        let writer = try ChildProcess.start(probe, ["write", temp.url.path])
        #expect(try await writer.waitForExit(deadline: .now + .seconds(180)) == .exited(0), "\(writer.standardError)")
        #expect(try await watcher.waitForExit(deadline: .now + .seconds(120)) == .exited(0), "\(watcher.standardError)")

        let lines = watcher.outputLines
        #expect(lines.contains("suite-callback key"), "\(lines)")
        #expect(lines.contains("model-onchange true"), "\(lines)")
        #expect(lines.contains("collection-callback changed"), "\(lines)")
        #expect(lines.contains("fresh suite=changed model=changed items=changed"), "\(lines)")
        // No task ran until the probe released the pool: the deliveries did not need one.
        #expect(lines.contains("canary-ran false"), "\(lines)")
    }
}
