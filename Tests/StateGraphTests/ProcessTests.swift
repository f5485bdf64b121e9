import FileStorageKit
import Foundation
import PlistCodec
import StateGraph
import Testing
import TestSupport

/// Suite-backed `@GraphStored` nodes under the fault harness every store's tests share
/// (`ProcessFaults`, driving `graph-probe`): processes released together, a setter killed at random
/// moments, a full disk and a read-only folder.
///
/// A node's set is one durable write that merges only its key into the newest file, under the
/// suite's lock: processes setting different keys keep each other's, and the same key is
/// last-writer-wins. A node offers no read-modify-write of its own (`count += 1` is a read and a
/// set, which loses increments across processes); the suite's `update(forKey:)` is the atomic one.
@Suite("StateGraph: processes sharing a suite", .serialized)
struct ProcessTests {
    static let deadline: Duration = .seconds(240)

    func faults(deadline: Duration = Self.deadline) throws -> ProcessFaults {
        try ProcessFaults(program: "graph-probe", deadline: deadline)
    }

    /// A node of the probe's suite in `folder`, made here as a model of this process would make it.
    func node<Value: Codable & Equatable>(_ key: String, in folder: URL, default value: Value) -> StoredNode<Value, UserDefaultsStorage<Value>> {
        GraphStorageLocation.$folder.withValue(folder) {
            StoredNode(name: key, backing: .userDefaults(suite: GraphProbeSuite.name, key: key), defaultValue: value)
        }
    }

    /// The suite's temporary files in `temp`: a killed writer's, or one a writer failed to remove.
    func temporaries(_ temp: TemporaryFolder) throws -> [String] {
        try temp.entries().filter { $0.hasPrefix(".\(GraphProbeSuite.fileName).tmp-") }
    }

    @Test("4 processes × 250 locked increments of one node's key end at exactly 1000, and a live node follows")
    func fourProcessesIncrement() async throws {
        let temp = try TemporaryFolder(prefix: "graph-increment")
        let live = node(GraphProbeSuite.countKey, in: temp.url, default: 0)
        let children = try await faults().runTogether(Array(repeating: ["increment", temp.url.path, "250"], count: 4))

        #expect(try ProcessFaults.incrementValues(children).sorted() == Array(1...1000), "every value from 1 to 1000 exactly once")
        let file = try storedDictionary(GraphProbeSuite.file(in: temp.url))
        #expect(file[GraphProbeSuite.countKey] == .int(1000))
        // Other processes' writes reach this process's node through the suite's watcher.
        #expect(await waitUntil(timeout: .seconds(120)) { live.wrappedValue == 1000 }, "the live node holds \(live.wrappedValue)")
        #expect(try temporaries(temp).isEmpty, "no temporary file is left behind")
    }

    @Test("4 processes × 100 node sets of keys of their own, released together, keep every key")
    func fourProcessesKeepEachOthersKeys() async throws {
        let temp = try TemporaryFolder(prefix: "graph-own-keys")
        try await faults().runTogether((1...4).map { ["set-keys", temp.url.path, "\($0)", "100"] })

        let file = try storedDictionary(GraphProbeSuite.file(in: temp.url))
        #expect(file.count == 400, "the file holds \(file.count) keys")
        for process in 1...4 {
            let lost = (1...100).filter { file[GraphProbeSuite.ownKey(process: process, index: $0)] != .int($0) }
            #expect(lost.isEmpty, "process \(process) lost keys \(lost.prefix(20))")
        }
        let fresh = node(GraphProbeSuite.ownKey(process: 3, index: 100), in: temp.url, default: 0)
        #expect(fresh.wrappedValue == 100, "a new node reads another process's key back")
        #expect(try temporaries(temp).isEmpty, "no temporary file is left behind")
    }

    /// 100 times, a fresh `graph-probe set-loop` sets `count` to its value + 1 as fast as it can and is
    /// killed at a random moment: the file always parses, and holds the last value the probe reported
    /// set or the one after it (a set under way is all there or not at all), never an older one.
    /// `CRASH_TEST_SEED=<n>` replays a run's kill moments.
    @Test func aSetterKilledAtAnyMomentLeavesTheLastValueOrTheNext() async throws {
        let temp = try TemporaryFolder(prefix: "graph-crash")
        let file = GraphProbeSuite.file(in: temp.url)
        var last = 0
        var midWrite = 0
        let run = try await faults(deadline: .seconds(60))
            .killAtRandomMoments(label: "StateGraph", trials: 100, maxPause: .milliseconds(20),
                                 arguments: { _ in ["set-loop", temp.url.path] }) { kill in
            let acknowledged = try #require(kill.outputLines.last(where: { $0.hasPrefix("ready ") })
                .flatMap { Int($0.dropFirst("ready ".count)) }, "\(kill)")
            let stored: PlistDictionary
            do {
                stored = try storedDictionary(file)
            } catch {
                Issue.record("\(kill): the suite's file does not parse: \(error)")
                return
            }
            let value = try #require(stored[GraphProbeSuite.countKey]?.intValue, "\(kill): no count in \(stored)")
            #expect(value == acknowledged || value == acknowledged + 1,
                    "\(kill): the file holds \(value), the probe reported \(acknowledged) set")
            #expect(value >= last, "\(kill): \(value) after \(last)")
            last = value
            let leftovers = try temporaries(temp)
            if !leftovers.isEmpty { midWrite += 1 }
            #expect(leftovers.count <= 1, "\(kill): temporary files of earlier writers: \(leftovers)")
        }
        // After the kills, a node reads the last value back, and its next set removes a killed writer's file.
        let count = node(GraphProbeSuite.countKey, in: temp.url, default: 0)
        #expect(count.wrappedValue == last)
        count.wrappedValue = last + 1
        #expect(count.storageError == nil)
        #expect(try storedDictionary(file)[GraphProbeSuite.countKey] == .int(last + 1))
        #expect(try temporaries(temp).isEmpty, "the next write removes a killed writer's file")
        print("ProcessTests: \(run); count reached \(last); \(midWrite) kills landed inside a write")
    }

    @Test("a full disk fails the set with .diskFull, and the file keeps the previous value")
    func aFullDiskFailsTheSetAndKeepsTheFile() async throws {
        let temp = try TemporaryFolder(prefix: "graph-disk-full")
        let file = GraphProbeSuite.file(in: temp.url)
        let text = node(GraphProbeSuite.textKey, in: temp.url, default: "")
        text.wrappedValue = "previous"
        #expect(text.storageError == nil)
        let before = try Data(contentsOf: file)
        let child = try await faults(deadline: .seconds(60)).runWithFileSizeLimit(8192, ["set-text", temp.url.path, "80000"])
        #expect(child.termination == .exited(1), "\(child.error("\(child.termination!)"))")
        #expect(child.standardError.contains("error: diskFull "), "\(child.standardError)")
        #expect(child.standardError.contains("key text: cannot write"), "\(child.standardError)")
        #expect(try Data(contentsOf: file) == before)
        #expect(try temporaries(temp).isEmpty, "the failed write removed its temporary file")
        #expect(node(GraphProbeSuite.textKey, in: temp.url, default: "").wrappedValue == "previous")
    }

    @Test(.enabled(if: ProcessFaults.canRunUnprivileged, "needs root and setpriv or runuser (root ignores mode bits)"))
    func aReadOnlyFolderFailsTheSetAndKeepsTheFile() async throws {
        let temp = try TemporaryFolder(prefix: "graph-read-only")
        let folder = temp.folder("suites")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let file = GraphProbeSuite.file(in: folder)
        let count = node(GraphProbeSuite.countKey, in: folder, default: 0)
        count.wrappedValue = 1
        #expect(count.storageError == nil)
        let before = try Data(contentsOf: file)
        let entries = try temp.entries(in: "suites").map { folder.appendingPathComponent($0) }
        try ProcessFaults.makeReadOnly(folder, files: entries, in: temp)
        let child = try await faults(deadline: .seconds(60)).runUnprivileged(["set-count", folder.path, "2"])
        #expect(child.termination == .exited(1), "\(child.error("\(child.termination!)"))")
        #expect(child.standardError.contains("error: permissionDenied "), "\(child.standardError)")
        #expect(try Data(contentsOf: file) == before)
        #expect(try temp.entries(in: "suites").filter { $0.contains(".tmp-") }.isEmpty)
    }
}
