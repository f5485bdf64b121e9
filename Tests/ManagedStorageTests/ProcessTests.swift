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

    @Test func killedWritersLeaveAValidStoreWithEveryReportedTransaction() async throws {
        let folder = try TemporaryFolder(prefix: "managed-kill")
        _ = try Self.open(folder.url)
        let faults = try ProcessFaults(program: "managed-probe", deadline: .seconds(120))
        let path = folder.url.appendingPathComponent("Store.sqlite").path
        var highestReported: Int64 = 0
        try await faults.killAtRandomMoments(label: "managed write-loop", trials: 200, maxPause: .milliseconds(40),
                                             arguments: { _ in ["write-loop", folder.url.path] }) { kill in
            let integrity = try DatabaseQueue(path: path).read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
            #expect(integrity == ["ok"], "\(kill)")
            let manager = try Self.open(folder.url)
            let (orders, items, counter, ids) = try manager.read { storage in
                (storage.countObjects(ofType: Order.self), storage.countObjects(ofType: OrderItem.self),
                 storage.firstObject(ofType: Counter.self, matching: #Predicate { $0.name == "tx" })?.value ?? 0,
                 storage.allObjects(ofType: Order.self).map(\.orderID))
            }
            #expect(items == orders * 5 && counter == Int64(orders), "no half transaction: \(kill)")
            #expect(ids == (0..<orders).map { Int64($0 + 1) }, "\(kill)")
            // Every transaction the probe reported committed before it was killed is there.
            let reported = kill.outputLines.compactMap { $0.hasPrefix("committed ") ? Int64($0.dropFirst(10)) : nil }.max() ?? 0
            #expect(reported >= 1, "the ready line came after a commit: \(kill)")
            #expect(Int64(orders) >= reported, "\(kill)")
            highestReported = max(highestReported, reported)
        }
        #expect(highestReported >= 200, "each trial committed at least one transaction")
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
