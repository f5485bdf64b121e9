import Foundation
import ManagedStorage
import ManagedTestModel
import Synchronization
import Testing

/// `hasChanges` and `save()`, NSManagedObjectContext's: what counts as a change, what a save clears,
/// and what neither does (fetches, refused mutations, ended or rolled-back operations).
@Suite struct StorageSavingTests {
    @Test(arguments: StoreKind.allCases) func hasChangesFollowsMutationsAndSavesNotFetches(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let id = try await store.manager.write { insertOrder($0, id: 1).toReadOnly().objectID }
        let steps = try await store.manager.write { storage -> [String] in
            var steps: [String] = []
            func note(_ what: String) { steps.append("\(what): \(storage.hasChanges)") }
            note("start")
            let order = try #require(storage.loadObject(ofType: Order.self, with: id))
            note("after a load")
            order.status = "completed"
            note("after a set")
            _ = storage.countObjects(ofType: Order.self)   // writes the set into the transaction
            note("after a fetch")
            storage.saveIfNeeded()
            note("after saveIfNeeded")
            let orderNote = storage.insertNewObject(ofType: OrderNote.self)
            note("after an insert")
            storage.deleteObject(orderNote)
            note("after deleting the unsaved insert")
            // An order's delete rules read its items, which writes the new order into the
            // transaction first: its insert and delete are both real statements, and count.
            storage.deleteObject(insertOrder(storage, id: 2))
            note("after deleting an unsaved insert with to-many rules")
            try storage.save()
            storage.deleteObject(order)
            note("after a delete")
            try storage.save()
            note("after save")
            let item = storage.insertNewObject(ofType: OrderItem.self)
            try storage.save()
            note("after saving an insert")
            item.name = "renamed"
            note("after a set on a saved insert")
            return steps
        }
        #expect(steps == ["start: false", "after a load: false", "after a set: true", "after a fetch: true",
                          "after saveIfNeeded: false", "after an insert: true", "after deleting the unsaved insert: false", "after deleting an unsaved insert with to-many rules: true",
                          "after a delete: true", "after save: false", "after saving an insert: false",
                          "after a set on a saved insert: true"])
    }

    @Test(arguments: StoreKind.allCases) func saveThrowsTheFirstErrorAndTheOperationStillRollsBack(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let thrown = Mutex<StorageError?>(nil)
        let result = await store.perform { storage -> Int in
            let customer = storage.insertNewObject(ofType: Customer.self)
            insertOrder(storage, id: 1).customer = customer
            storage.deleteObject(customer)
            do {
                try storage.save()
            } catch {
                thrown.withLock { $0 = error as? StorageError }
            }
            insertOrder(storage, id: 2)   // carries on after catching
            return storage.countObjects(ofType: Order.self)
        }
        #expect(thrown.withLock { $0 } == .deleteDenied(entity: "Customer", relationship: "orders"))
        guard case .failure(let error as StorageError) = result else { Issue.record("expected a failure, got \(result)"); return }
        #expect(error == .deleteDenied(entity: "Customer", relationship: "orders"), "the caught error still failed the operation")
        #expect(try store.manager.read { $0.countObjects(ofType: Order.self) } == 0)
    }

    @Test(arguments: StoreKind.allCases) func anEndedOrRolledBackStorageHasNoChangesAndSavesNothing(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let kept = Mutex<UncheckedStorage?>(nil)
        struct Refused: Error {}
        let result = await store.perform { storage -> Int in
            kept.withLock { $0 = UncheckedStorage(storage) }
            insertOrder(storage, id: 1)
            #expect(storage.hasChanges)
            throw Refused()
        }
        #expect((try? result.get()) == nil)
        let storage = try #require(kept.withLock { $0 }).storage
        #expect(!storage.hasChanges, "the rollback left nothing pending")
        try storage.save()   // nothing to do, nothing thrown
        #expect(try store.manager.read { $0.countObjects(ofType: Order.self) } == 0)
    }

    @Test(arguments: StoreKind.allCases) @MainActor func viewStorageNeverHasChangesAndItsSaveWritesNothing(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        try await store.manager.write { storage in _ = insertOrder(storage, id: 1) }
        let view = store.manager.viewStorage
        let order = try #require(view.firstObject(ofType: Order.self))
        order.status = "changed"
        _ = view.insertNewObject(ofType: Order.self)
        #expect(!view.hasChanges)
        try view.save()
        #expect(try store.manager.read { $0.allObjects(ofType: Order.self).map(\.status) } == ["processing"])
        #expect(store.errors.count == 2, "both mutations were reported when attempted: \(store.errors)")
        store.manager.reset()
        #expect(!view.hasChanges)
    }

    @Test(arguments: StoreKind.allCases) func allObjectsSortedByWithoutAPredicate(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let ids = try await store.manager.write { storage -> [Int64] in
            for (id, total) in [(1, 30.0), (2, 10.0), (3, 20.0)] { insertOrder(storage, id: Int64(id), total: total) }
            return storage.allObjects(ofType: Order.self, sortedBy: [SortDescriptor(\.total)]).map(\.orderID)
                + storage.allObjects(ofType: Order.self, sortedBy: nil).map(\.orderID)
        }
        #expect(ids == [2, 3, 1, 1, 2, 3])
    }
}
