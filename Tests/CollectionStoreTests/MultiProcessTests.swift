import CollectionStore
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 5, item 2: processes creating items in one file lose none, and a writer killed at any
/// moment leaves a file that decodes.
@Suite(.serialized) struct MultiProcessTests {
    @Test func fourProcessesCreating250EachLeave1000() async throws {
        let probe = try collectionProbe()
        let temp = try TemporaryFolder(prefix: "collection-contention")
        let file = temp.file("shared.plist")
        let gate = temp.file("go")
        let deadline = ContinuousClock.now + .seconds(240)
        var children: [ChildProcess] = []
        for process in 1...4 {
            children.append(try ChildProcess.start(probe, ["--start-after", gate.path, "create", file.path, "\(process)", "250"]))
        }
        for child in children { _ = try await child.waitForLine(deadline: deadline) { $0 == "waiting" } }
        let started = ContinuousClock.now
        try #require(FileManager.default.createFile(atPath: gate.path, contents: nil))
        try await ChildProcess.waitForAll(children, deadline: deadline)
        for child in children {
            try #require(child.termination == .exited(0), "\(child.error("\(child.termination.map { "\($0)" } ?? "running")"))")
        }
        print("MultiProcessTests: 4 × 250 creates took \(ContinuousClock.now - started)")

        let items = try PropertyListDecoder().decode([CollectionProbeItem].self, from: Data(contentsOf: file))
        #expect(items.count == 1000)
        for process in 1...4 {
            // Each process's own items are all there, once each, in the order it created them.
            #expect(items.filter { $0.process == process }.map(\.sequence) == Array(1...250), "process \(process)")
        }
        let intact = items.allSatisfy { $0.isIntact }
        #expect(intact, "every item checks out")
        #expect(try temp.entries() == [".shared.plist.lock", "go", "shared.plist"], "no temporary file is left behind")
    }

    /// `CRASH_TEST_SEED=<n>` replays a run's kill moments.
    @Test func killedCreatorNeverLeavesAnUndecodableFile() async throws {
        let probe = try collectionProbe()
        let temp = try TemporaryFolder(prefix: "collection-crash")
        let file = temp.file("items.plist")
        let seed = ProcessInfo.processInfo.environment["CRASH_TEST_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        var rng = SeededGenerator(seed: seed)
        print("MultiProcessTests: crash seed \(seed) (replay with CRASH_TEST_SEED=\(seed)) in \(file.path)")

        var highest = 0
        var midWrite = 0
        var temporaries: Set<String> = []
        for trial in 1...200 {
            let pause = rng.int(in: 0...20_000)
            let child = try ChildProcess.start(probe, ["create-loop", file.path, "1"])
            let ready = try await child.waitForLine(deadline: .now + .seconds(60)) { $0.hasPrefix("ready ") }
            let reported = try #require(Int(ready.dropFirst("ready ".count)), "trial \(trial): \(ready)")
            // This pause is the point of the test, not a wait for a condition: it picks the kill moment.
            try await Task.sleep(for: .microseconds(pause))
            child.kill(SIGKILL)
            let end = try await child.waitForExit(deadline: .now + .seconds(60))
            try #require(end == .signaled(SIGKILL), "trial \(trial): \(child.error("\(end)"))")

            let context = "trial \(trial) of seed \(seed), killed \(pause) µs after item \(reported)"
            let items: [CollectionProbeItem]
            do {
                items = try PropertyListDecoder().decode([CollectionProbeItem].self, from: Data(contentsOf: file))
            } catch {
                Issue.record("\(context): the file does not decode: \(error)")
                return
            }
            let sequences = items.map(\.sequence)
            #expect(sequences == Array(1...max(1, sequences.count)), "\(context): items are missing or repeated")
            let intact = items.allSatisfy { $0.isIntact }
            #expect(intact, "\(context): a damaged item")
            #expect(items.count >= reported && items.count >= highest, "\(context): \(items.count) items, fewer than reported")
            highest = max(highest, items.count)
            // A new temporary file means the kill landed inside a write.
            let fresh = Set(try temp.entries().filter { $0.contains(".tmp-") }).subtracting(temporaries)
            if !fresh.isEmpty { midWrite += 1 }
            temporaries.formUnion(fresh)
        }
        print("MultiProcessTests: 200 kills; the file holds \(highest) items; \(midWrite) kills landed inside a write")
    }
}
