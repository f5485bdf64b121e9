import Foundation
import GRDB
import ManagedStorage
import ManagedTestModel
import Synchronization
import Testing
import TestSupport

/// Ordering, the write lock's deadline, reset, the change stream and the size of the write-ahead log.
@Suite struct ManagerBehaviourTests {
    @Test func writesRunInSubmissionOrderWhicheverFormSubmitsThem() async throws {
        let store = try TestStore()
        let order = Mutex<[Int]>([])
        let done = AsyncStream<Void>.makeStream()
        for n in 0..<60 {
            if n % 3 == 0 {
                store.manager.performAndSave({ storage in
                    order.withLock { $0.append(n) }
                    insertOrder(storage, id: Int64(n))
                }, completion: nil, on: .global())
            } else {
                store.manager.performAndSave({ storage -> Int in
                    order.withLock { $0.append(n) }
                    return storage.countObjects(ofType: Order.self)
                }, completion: { _ in if n == 59 { done.continuation.yield() } }, on: .global())
            }
        }
        var iterator = done.stream.makeAsyncIterator()
        await iterator.next()
        #expect(order.withLock { $0 } == Array(0..<60))
    }

    @Test func resetDeletesTheRowsKeepsTheFileAndTellsEveryone() async throws {
        let store = try TestStore()
        _ = try await store.perform { storage in for id in 1...3 { insertOrder(storage, id: Int64(id), items: 2) } }.get()
        let inode = try #require(try FileManager.default.attributesOfItem(atPath: store.manager.fileURL.path)[.systemFileNumber] as? Int)
        let resets = store.manager.resets()
        let changes = store.manager.changes()
        let notified = Mutex(false)
        let observer = NotificationCenter.default.addObserver(forName: .storageManagerDidResetStorage, object: store.manager, queue: nil) { _ in
            notified.withLock { $0 = true }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        store.manager.reset()
        var resetIterator = resets.makeAsyncIterator()
        await resetIterator.next()
        var changeIterator = changes.makeAsyncIterator()
        let change = await changeIterator.next()
        #expect(change?.resetEntities.contains("Order") == true)
        #expect(notified.withLock { $0 })
        let counts = try await store.perform { [$0.countObjects(ofType: Order.self), $0.countObjects(ofType: OrderItem.self)] }.get()
        #expect(counts == [0, 0])
        let after = try FileManager.default.attributesOfItem(atPath: store.manager.fileURL.path)[.systemFileNumber] as? Int
        #expect(after == inode, "the same file: other processes keep a valid store")
        // Ids are not reused after a reset (AUTOINCREMENT), so an old object ID never finds a new object.
        let id = try await store.perform { insertOrder($0, id: 9).toReadOnly().objectID.rowID }.get()
        #expect(id > 3)
    }

    @Test func changeStreamReportsEachCommitAndNothingForARollback() async throws {
        let store = try TestStore()
        let changes = store.manager.changes()
        let first = try await store.perform { insertOrder($0, id: 1, items: 1).toReadOnly() }.get()
        _ = await store.perform { storage -> Int in
            insertOrder(storage, id: 2)
            throw CancellationError()
        }
        _ = try await store.perform { storage in
            storage.deleteObject(storage.loadObject(ofType: Order.self, with: first.objectID)!)
        }.get()
        var iterator = changes.makeAsyncIterator()
        let inserted = await iterator.next()
        let deleted = await iterator.next()
        #expect(inserted?.inserted == [first.objectID, first.items[0].objectID])
        #expect(deleted?.deleted == [first.objectID, first.items[0].objectID], "the rolled-back operation sent nothing")
    }
}
