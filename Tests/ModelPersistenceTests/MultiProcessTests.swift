import Foundation
import Observation
import PlistCodec
import Testing
import TestSupport
@testable import ModelPersistence

/// Issue 4, item 2: processes sharing one model's file.
///
/// Each test works in its own temporary folder, on `ProbeModel`, which `model-probe` (started as a
/// child process) declares the same way. Probes that must contend start together: each loads the model,
/// prints `waiting`, and holds until a gate file appears. The suite runs its tests one at a time, so
/// at most four probes share the two cores with the other suites.
@Suite("ModelPersistence: processes sharing a file", .serialized)
struct MultiProcessTests {
    /// The model `model-probe` works on: same storage name, same properties in the same order.
    @PersistedModel
    final class ProbeModel {
        @StorageName static let storageName = "ProbeModel"
        var count: Int = 0
        var a: String = ""
        var b: String = ""
    }

    /// How long a step that involves child processes may take before the test fails (2 noisy cores).
    static let deadline: Duration = .seconds(120)

    /// The `model-probe` program, which `ci/test` builds beside the test executable.
    func modelProbe() throws -> URL {
        try ChildProcess.builtProgram("model-probe")
    }

    /// A model whose file is `folder/ProbeModel.storage.plist` (resolved by its first use, here).
    func model(in folder: URL) -> ProbeModel {
        PersistenceLocation.$folder.withValue(folder) {
            let model = ProbeModel()
            _ = model.count   // first use: writes the file, or loads it
            return model
        }
    }

    /// Polls `condition` until it holds or `timeout` passes, without blocking a thread.
    func eventually(timeout: Duration = .seconds(60), _ condition: () -> Bool) async throws -> Bool {
        let end = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < end else { return condition() }
            try await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    /// Starts one probe per argument list, lets them all work at once when every one has loaded the
    /// model (`ProcessFaults.runTogether`), waits for all, and requires each to exit 0.
    func runBatch(_ argumentLists: [[String]]) async throws -> [ChildProcess] {
        try await ProcessFaults(program: "model-probe", deadline: Self.deadline).runTogether(argumentLists)
    }

    /// The file's top-level dictionary, for a check that does not go through any model.
    func stored(_ folder: URL) throws -> PlistDictionary {
        try storedDictionary(folder.appendingPathComponent("ProbeModel.storage.plist"))
    }

    @Test("a probe sees a value this process sets, through its change monitor")
    func probeSeesValueSetHere() async throws {
        let temp = try TemporaryFolder(prefix: "mp-multi-seen-there")
        let model = model(in: temp.url)
        let deadline = ContinuousClock.now + Self.deadline
        let child = try ChildProcess.start(try modelProbe(), ["wait-for", temp.url.path, "a", "from the test", "600"])
        // The probe has loaded the file as it was: what it sees next comes from a reload.
        let ready = try await child.waitForLine(deadline: deadline) { $0.hasPrefix("ready") }
        #expect(ready == "ready a=")
        let setAt = ContinuousClock.now
        model.a = "from the test"
        let seen = try await child.waitForLine(deadline: deadline) { $0.hasPrefix("seen") || $0.hasPrefix("timeout") }
        let latency = ContinuousClock.now - setAt
        #expect(seen.hasPrefix("seen a=from the test after "), "\(child.error(seen))")
        #expect(try await child.waitForExit(deadline: deadline) == .exited(0), "\(child.error("failed"))")
        print("MultiProcessTests: the probe saw the set: \(seen); set to line read here: \(latency)")
    }

    @Test("this process's live instance sees a value a probe sets, and its observers hear of it")
    func liveInstanceSeesValueSetThere() async throws {
        let temp = try TemporaryFolder(prefix: "mp-multi-seen-here")
        let model = model(in: temp.url)
        #expect(model.a == "")
        let changedA = Flag(), changedB = Flag()
        withObservationTracking { _ = model.a } onChange: { changedA.raise() }
        withObservationTracking { _ = model.b } onChange: { changedB.raise() }

        let child = try ChildProcess.start(try modelProbe(), ["set-a", temp.url.path, "from the probe"])
        #expect(try await child.waitForExit(deadline: .now + Self.deadline) == .exited(0), "\(child.error("failed"))")
        #expect(child.outputLines == ["ok"])
        #expect(try stored(temp.url)["a"] == .string("from the probe"))

        // The reload happens on the instance's next use of a property; polling `b` triggers it.
        #expect(try await eventually { _ = model.b; return changedA.count > 0 })
        #expect(model.a == "from the probe")
        #expect(changedA.count == 1)
        #expect(changedB.count == 0, "only the property the probe changed is assigned")

        // And the other way again, through `show`: the probe's first read finds this process's value.
        model.b = "from the test"
        let show = try ChildProcess.start(try modelProbe(), ["show", temp.url.path])
        #expect(try await show.waitForExit(deadline: .now + Self.deadline) == .exited(0), "\(show.error("failed"))")
        #expect(show.outputLines == ["count 0", "a from the probe", "b from the test"])
    }

    @Test("4 processes × 250 `update` increments end at exactly 1000, each value handed out once")
    func fourProcessesIncrement() async throws {
        let temp = try TemporaryFolder(prefix: "mp-multi-increment")
        let model = model(in: temp.url)
        let children = try await runBatch(Array(repeating: ["increment", temp.url.path, "250"], count: 4))

        var values: [Int] = []
        for child in children {
            let line = try #require(child.outputLines.first { $0.hasPrefix("values") }, "\(child.error("no values line"))")
            let own = line.split(separator: " ").dropFirst().compactMap { Int($0) }
            #expect(own.count == 250 && own == own.sorted(), "a process's own increments rise: \(child.pid)")
            values += own
        }
        #expect(values.sorted() == Array(1...1000), "every value from 1 to 1000 exactly once")
        #expect(try stored(temp.url)["count"] == .int(1000))
        #expect(try await eventually { model.count == 1000 }, "the live instance reloads: \(model.count)")
        #expect(self.model(in: temp.url).count == 1000)
        let leftovers = try temp.entries().filter { $0 != "ProbeModel.storage.plist" && !$0.hasSuffix(".lock") }
        #expect(leftovers.isEmpty, "no temporary file is left behind")
    }

    @Test("two processes setting different properties at the same time keep both (5 rounds)")
    func differentPropertiesKeepBoth() async throws {
        let temp = try TemporaryFolder(prefix: "mp-multi-both")
        let folder = temp.url.path
        let model = model(in: temp.url)
        for round in 1...5 {
            _ = try await runBatch([["set-a", folder, "a\(round)"], ["set-b", folder, "b\(round)"]])
            let file = try stored(temp.url)
            #expect(file["a"] == .string("a\(round)") && file["b"] == .string("b\(round)"),
                    "round \(round): the file holds \(file)")
            #expect(file["count"] == .int(0))
            #expect(try await eventually { model.a == "a\(round)" && model.b == "b\(round)" },
                    "round \(round): the live instance holds a=\(model.a) b=\(model.b)")
        }
        let fresh = self.model(in: temp.url)
        #expect(fresh.a == "a5" && fresh.b == "b5")
    }
}
