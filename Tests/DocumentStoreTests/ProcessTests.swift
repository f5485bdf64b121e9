import DocumentStore
import DocumentTestModel
import Foundation
import GRDB
import Testing
import TestSupport

/// Real processes on one store, through the shared `ProcessFaults` harness and `document-probe`.
@Suite struct DocumentProcessTests {
    @Test func fourProcessesIncrementingOneDocumentEndAtExactly1000With1000Revisions() async throws {
        let folder = try TemporaryFolder(prefix: "doc-contention")
        let store = try Persistence(url: folder.file("Store.sqlite"))   // create the file before the race
        let faults = try ProcessFaults(program: "document-probe", deadline: .seconds(300))
        let children = try await faults.runTogether(Array(repeating: ["increment", folder.url.path, "250"], count: 4))
        let values = try ProcessFaults.incrementValues(children)
        #expect(values.sorted() == Array(1...1000), "every increment saw the one before it")
        let conflicts = children.compactMap { $0.outputLines.first { $0.hasPrefix("conflicts ") } }
        print("document increments: \(conflicts.joined(separator: ", "))")
        let counter: Counter = try #require(try store.load("c"))
        #expect(counter.value == 1000)
        let feed = try store.changes(limit: 5000)
        #expect(feed.count == 1000 && Set(feed.map(\.revision)).count == 1000, "one feed entry per revision")
        #expect(feed.map(\.sequence) == feed.map(\.sequence).sorted())
        #expect(feed.last?.revision.hasPrefix("1000-") == true)
    }

    @Test func aLiveQueryInAnotherProcessSeesThisProcessesSaves() async throws {
        let folder = try TemporaryFolder(prefix: "doc-watch")
        let store = try Persistence(url: folder.file("Store.sqlite"))
        let watcher = try ChildProcess.start(try ChildProcess.builtProgram("document-probe"), ["watch", folder.url.path])
        defer { watcher.kill(SIGKILL) }
        _ = try await watcher.waitForLine(deadline: .now + .seconds(180)) { $0 == "ready" }
        try store.save(Counter(identifier: "k", value: 7))
        let line = try await watcher.waitForLine(deadline: .now + .seconds(180)) { $0.hasPrefix("counters 1") }
        #expect(line == "counters 1 k=7")
    }
}
