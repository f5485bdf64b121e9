import Foundation
import GRDB
import ManagedStorage
import ManagedTestModel
import Testing
import TestSupport

/// Real processes on one store: contention, SIGKILL mid-transaction, and readers beside a writer,
/// through the shared `ProcessFaults` harness and the `managed-probe` program.
@Suite struct ProcessTests {
    static func open(_ folder: URL) throws -> SQLiteStorageManager {
        try SQLiteStorageManager(model: testModel, configuration: StorageConfiguration(name: "Store", folder: folder))
    }

    @Test func fourProcessesIncrementingOneCounterEndAtExactly1000() async throws {
        let folder = try TemporaryFolder(prefix: "managed-contention")
        _ = try Self.open(folder.url)   // create the store before the race
        let faults = try ProcessFaults(program: "managed-probe", deadline: .seconds(300))
        let children = try await faults.runTogether(Array(repeating: ["increment", folder.url.path, "250"], count: 4))
        let values = try ProcessFaults.incrementValues(children)
        #expect(values.sorted() == Array(1...1000), "every increment saw the one before it")
        let final = try Self.open(folder.url).writeAndWait { storage in
            storage.allObjects(ofType: Counter.self).map(\.value)
        }
        #expect(final == [1000], "one counter row, no duplicate inserted by a concurrent first write")
    }

    @Test func aReaderInAnotherProcessNeverSeesHalfATransaction() async throws {
        let folder = try TemporaryFolder(prefix: "managed-readers")
        _ = try Self.open(folder.url)
        let faults = try ProcessFaults(program: "managed-probe", deadline: .seconds(300))
        let children = try await faults.runTogether([
            ["write-loop", folder.url.path, "300"],
            ["check-reads", folder.url.path, "2000"],
            ["check-reads", folder.url.path, "2000"],
        ])
        for child in children.dropFirst() {
            let line = try #require(child.outputLines.first { $0.hasPrefix("reads") })
            #expect(line == "reads 2000 torn 0", "\(line)")
        }
        let committed = children[0].outputLines.filter { $0.hasPrefix("committed") }.count
        #expect(committed == 300)
    }
}
