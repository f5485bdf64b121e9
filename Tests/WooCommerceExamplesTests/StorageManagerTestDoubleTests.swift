import Foundation
import ManagedStorage
import ManagedTestModel
import Testing
import TestSupport

/// Test doubles of `StorageManagerType` under Swift 6: a plain `final class` conforms, is used where a
/// `StorageManagerType` is expected, and gets `writerDerivedStorage` and `saveDerivedType` from the
/// protocol.
@MainActor
@Suite struct StorageManagerTestDoubleTests {
    @Test func aMockIsUsedWhereAStorageManagerTypeIsExpected() async throws {
        let mock = try MockStorageManager(model: testModel)
        let storageManager: any StorageManagerType = mock
        let store = OrderUpsertStore(storageManager: storageManager)
        let controller = ResultsController<Order>(storageManager: storageManager, sortedBy: [SortDescriptor(\.orderID)])
        try controller.performFetch()

        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            store.upsertStoredOrdersInBackground(readOnlyOrders: [RemoteOrder(orderID: 1, status: "pending", total: 3)]) {
                done.resume()
            }
        }
        let total = try await withCheckedThrowingContinuation { (done: CheckedContinuation<Double, Error>) in
            storageManager.performAndSave({ storage in
                storage.allObjects(ofType: Order.self).reduce(0) { $0 + $1.total }
            }, completion: { done.resume(with: $0) })
        }
        #expect(total == 3)
        #expect(await settle(controller, mock.backing))
        #expect(controller.fetchedObjects.map(\.orderID) == [1])
        storageManager.reset()
        // The derived storage's block went through the mock's own performAndSave (the protocol's default).
        #expect(mock.calls == ["performAndSave", "performAndSave<Double>", "reset"])
        #expect(storageManager.viewStorage.countObjects(ofType: Order.self) == 0)
    }

    @Test func wooShapedMockRunsDerivedBlocksThroughItsSynchronousWrites() async throws {
        let mock = try WooShapedMockStorageManager(model: testModel)
        let derivedStorage = mock.writerDerivedStorage
        derivedStorage.perform {
            insertOrder(derivedStorage, id: 1)
            derivedStorage.perform { insertOrder(derivedStorage, id: 2) }   // joins the block
        }
        var completed = false
        mock.saveDerivedType(derivedStorage: derivedStorage) { completed = true }
        #expect(completed)
        #expect(mock.numberOfWrites == 1, "one block, one write, the nested one included")
        #expect(mock.viewStorage.countObjects(ofType: Order.self) == 2)
    }
}
