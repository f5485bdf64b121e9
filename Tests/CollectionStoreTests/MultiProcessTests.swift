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
        let temp = try TemporaryFolder(prefix: "collection-contention")
        let file = temp.file("shared.plist")
        try await ProcessFaults(program: "collection-probe", deadline: .seconds(240))
            .runTogether((1...4).map { ["create", file.path, "\($0)", "250"] })

        let items = try PropertyListDecoder().decode([CollectionProbeItem].self, from: Data(contentsOf: file))
        #expect(items.count == 1000)
        for process in 1...4 {
            // Each process's own items are all there, once each, in the order it created them.
            #expect(items.filter { $0.process == process }.map(\.sequence) == Array(1...250), "process \(process)")
        }
        let intact = items.allSatisfy { $0.isIntact }
        #expect(intact, "every item checks out")
        #expect(try temp.entries() == [".shared.plist.lock", "shared.plist"], "no temporary file is left behind")
    }

    /// `CRASH_TEST_SEED=<n>` replays a run's kill moments (`ProcessFaults.killAtRandomMoments`).
    @Test func killedCreatorNeverLeavesAnUndecodableFile() async throws {
        let temp = try TemporaryFolder(prefix: "collection-crash")
        let file = temp.file("items.plist")
        var highest = 0
        var midWrite = 0
        let run = try await ProcessFaults(program: "collection-probe", deadline: .seconds(60))
            .killAtRandomMoments(label: "CollectionStore", trials: 200, maxPause: .milliseconds(20),
                                 arguments: { _ in ["create-loop", file.path, "1"] }) { kill in
            let reported = try #require(kill.readyNumber, "\(kill)")
            let items: [CollectionProbeItem]
            do {
                items = try PropertyListDecoder().decode([CollectionProbeItem].self, from: Data(contentsOf: file))
            } catch {
                Issue.record("\(kill): the file does not decode: \(error)")
                return
            }
            let sequences = items.map(\.sequence)
            #expect(sequences == Array(1...max(1, sequences.count)), "\(kill): items are missing or repeated")
            let intact = items.allSatisfy { $0.isIntact }
            #expect(intact, "\(kill): a damaged item")
            #expect(items.count >= reported && items.count >= highest, "\(kill): \(items.count) items, fewer than reported")
            highest = max(highest, items.count)
            // A temporary file means the kill landed inside a write; earlier ones were removed by this writer.
            let temporaries = try temp.entries().filter { $0.contains(".tmp-") }
            if !temporaries.isEmpty { midWrite += 1 }
            #expect(temporaries.count <= 1, "\(kill): \(temporaries)")
        }
        print("MultiProcessTests: \(run); the file holds \(highest) items; \(midWrite) kills landed inside a write")
    }

    /// A full disk (`RLIMIT_FSIZE` in the probe): the create fails with `.writingError`, the file keeps
    /// its last version and no temporary file is left.
    @Test func aFullDiskFailsTheWriteAndKeepsTheFile() async throws {
        let temp = try TemporaryFolder(prefix: "collection-disk-full")
        let file = temp.file("items.plist")
        let store = DataPersistence<CollectionProbeItem>(filename: "items.plist", directory: .folder(temp.url))
        try store.createItem(CollectionProbeItem(process: 1, sequence: 1))
        let before = try Data(contentsOf: file)
        let child = try await ProcessFaults(program: "collection-probe", deadline: .seconds(60))
            .runWithFileSizeLimit(8192, ["create-large", file.path, "80000"])
        #expect(child.termination == .exited(1), "\(child.error("\(child.termination!)"))")
        #expect(child.standardError.contains("write"), "\(child.standardError)")
        #expect(try Data(contentsOf: file) == before)
        #expect(try temp.entries().filter { $0.contains(".tmp-") }.isEmpty)
    }

    @Test(.enabled(if: ProcessFaults.canRunUnprivileged, "needs root and setpriv or runuser (root ignores mode bits)"))
    func aReadOnlyFolderFailsTheWriteAndKeepsTheFile() async throws {
        let temp = try TemporaryFolder(prefix: "collection-read-only")
        let folder = temp.folder("items")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let file = folder.appendingPathComponent("items.plist")
        let store = DataPersistence<CollectionProbeItem>(filename: "items.plist", directory: .folder(folder))
        try store.createItem(CollectionProbeItem(process: 1, sequence: 1))
        let before = try Data(contentsOf: file)
        try ProcessFaults.makeReadOnly(folder, files: [file, folder.appendingPathComponent(".items.plist.lock")], in: temp)
        let child = try await ProcessFaults(program: "collection-probe", deadline: .seconds(60)).runUnprivileged(["create-one", file.path, "2", "1"])
        #expect(child.termination == .exited(1), "\(child.error("\(child.termination!)"))")
        #expect(try Data(contentsOf: file) == before)
    }
}
