import Foundation
import ManagedStorage
import ManagedTestModel
import Synchronization
import Testing
import TestSupport

/// ManagedStorage in the shared fault suite: orders of the test model, one per write.
struct ManagedStoreUnderTest: SQLiteStoreUnderTest {
    var description: String { "ManagedStorage" }
    var probe: String { "managed-probe" }

    func probeWrite(_ folder: URL, id: Int, bytes: Int) -> [String] { ["insert", folder.path, "\(id)", "\(bytes)"] }
    func probeOpen(_ folder: URL) -> [String] { ["open", folder.path] }
    func probeWriteLoop(_ folder: URL) -> [String] { ["write-loop", folder.path] }

    func open(_ folder: URL, busyTimeout: Duration, walSizeLimit: Int, pollInterval: Duration) throws -> any OpenSQLiteStore {
        var configuration = StorageConfiguration(name: "Store", folder: folder)
        configuration.busyTimeout = busyTimeout
        configuration.walSizeLimit = walSizeLimit
        configuration.otherProcessPollInterval = pollInterval
        configuration.onError = { _ in }
        return Open(manager: try SQLiteStorageManager(model: testModel, configuration: configuration))
    }

    func checkAfterKill(_ folder: URL, _ kill: KilledProbe) throws -> Int {
        let manager = try SQLiteStorageManager(model: testModel, configuration: StorageConfiguration(name: "Store", folder: folder))
        let (orders, items, counter, ids) = try manager.read { storage in
            (storage.countObjects(ofType: Order.self), storage.countObjects(ofType: OrderItem.self),
             storage.firstObject(ofType: Counter.self, matching: #Predicate { $0.name == "tx" })?.value ?? 0,
             storage.allObjects(ofType: Order.self).map(\.orderID))
        }
        #expect(items == orders * 5 && counter == Int64(orders), "no half transaction: \(kill)")
        #expect(ids == (0..<orders).map { Int64($0 + 1) }, "\(kill)")
        let reported = kill.outputLines.compactMap { $0.hasPrefix("committed ") ? Int64($0.dropFirst(10)) : nil }.max() ?? 0
        #expect(reported >= 1 && Int64(orders) >= reported, "every reported transaction is there: \(kill)")
        return Int(reported)
    }

    func openDamaged(_ folder: URL, lockTimeout: Duration) throws -> Recovery {
        let log = Mutex<[StorageError]>([])
        var configuration = StorageConfiguration(name: "Store", folder: folder)
        configuration.recoveryLockTimeout = lockTimeout
        configuration.onError = { error in log.withLock { $0.append(error) } }
        let manager = try SQLiteStorageManager(model: testModel, configuration: configuration)
        let rows = try manager.read { $0.countObjects(ofType: Order.self) }
        guard case .corruptStoreMovedAside(let file, let movedTo, let cause)? = manager.recoveredFromCorruption else {
            return Recovery(rows: rows, movedTo: nil, cause: nil)
        }
        #expect(file == manager.fileURL.path)
        #expect(log.withLock { $0 } == [manager.recoveredFromCorruption!], "reported on the error hook too")
        return Recovery(rows: rows, movedTo: movedTo, cause: cause)
    }

    func fault(_ error: any Error) -> StoreFault? {
        switch error as? StorageError {
        case .busyTimeout(let file, let seconds)?: .busyTimeout(file: file, seconds: seconds)
        case .readOnly(let file)?: .readOnly(file: file)
        case .diskFull(let file)?: .diskFull(file: file)
        case .corruptDatabase(let file, _)?: .corruptDatabase(file: file)
        case .cannotOpen(let file, _)?: .cannotOpen(file: file)
        default: nil
        }
    }

    final class Open: OpenSQLiteStore, @unchecked Sendable {
        let manager: SQLiteStorageManager
        init(manager: SQLiteStorageManager) { self.manager = manager }

        func write(id: Int, bytes: Int) throws {
            try manager.writeAndWait { storage in
                let order = storage.insertNewObject(ofType: Order.self)
                order.orderID = Int64(id)
                order.customerNote = String(repeating: "w", count: bytes)
            }
        }

        func count() throws -> Int { try manager.read { $0.countObjects(ofType: Order.self) } }

        func otherCommits() async throws -> AsyncStream<Void> {
            let changes = manager.changes()
            return AsyncStream { continuation in
                let task = Task {
                    for await change in changes where change.fromAnotherProcess { continuation.yield() }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }

        func checkForOtherCommits() { manager.checkForOtherProcessesCommits() }
    }
}
