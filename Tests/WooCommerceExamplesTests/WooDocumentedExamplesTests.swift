import Foundation
import ManagedStorage
import ManagedTestModel
import Synchronization
import Testing
import TestSupport

/// Runs WooDocumentedExamples: WooCommerce's Storage tests, its stores' derived-storage pattern and
/// ResultsController+UIKit, each test body theirs with the changes commented (`Linux:`, `Swift 6:`,
/// and `Here:` where a ManagedStorage design choice differs, as ManagedStorage.docc's `PortingFromWooCommerce.md` lists).
@MainActor
@Suite struct WooDocumentedExamplesTests {
    // MARK: Storage/StorageTests/Extensions/NSManagedObjectContextStorageTests.swift

    /// Here: the stack's storage for writing is the storage of an operation (`viewStorage` only
    /// reads), so each body runs inside `writeAndWait`, with `context` its storage.
    nonisolated func withContext(_ body: (_ stack: DummyStack, _ context: StorageType) throws -> Void) throws {
        let stack = try DummyStack()
        try stack.manager.writeAndWait { context in try body(stack, context) }
    }

    nonisolated func insertDummyEntities(_ count: Int, in context: StorageType) {
        for i in 0 ..< count {
            let entity = context.insertNewObject(ofType: DummyEntity.self)
            entity.key = "\(i)"
            entity.value = i
        }

        _ = try? context.save()
    }

    @Test func test_allObjects_returns_all_of_the_avable_entities_sorted_by_value() throws {
        try withContext { _, context in
            insertDummyEntities(100, in: context)

            // Linux: NSSortDescriptor(key:ascending:) is unavailable (no key-value coding); Here: sorts are
            // typed SortDescriptors.
            let descriptor = SortDescriptor(\DummyEntity.value, order: .forward)
            let all = context.allObjects(ofType: DummyEntity.self, sortedBy: [descriptor])
            #expect(all.count == 100)

            for (index, object) in all.enumerated() {
                #expect(object.value == index)
            }
        }
    }

    @Test func test_allObjects_matching_predicate_effectively_filters_entities() throws {
        try withContext { _, context in
            insertDummyEntities(100, in: context)

            let minValue = 50
            let maxValue = 59
            // Linux: NSPredicate(format:) is unavailable; "value BETWEEN %@" as a #Predicate.
            let predicate = #Predicate<DummyEntity> { $0.value >= minValue && $0.value <= maxValue }
            let descriptor = SortDescriptor(\DummyEntity.value, order: .forward)

            let filtered = context.allObjects(ofType: DummyEntity.self, matching: predicate, sortedBy: [descriptor])
            #expect(filtered.count == 10)

            for (index, object) in filtered.enumerated() {
                #expect(object.value == minValue + index)
            }
        }
    }

    @Test func test_countObjects_returns_the_right_entity_count() throws {
        try withContext { _, context in
            let expected = 80
            insertDummyEntities(expected, in: context)

            let count = context.countObjects(ofType: DummyEntity.self)
            #expect(count == expected)
        }
    }

    @Test func test_countObjects_returns_the_right_entity_count_matching_the_specified_predicate() throws {
        try withContext { _, context in
            let inserted = 42
            let expected = 3
            insertDummyEntities(inserted, in: context)

            // Linux: as above.
            let predicate = #Predicate<DummyEntity> { $0.value >= 5 && $0.value <= 7 }
            let retrieved = context.countObjects(ofType: DummyEntity.self, matching: predicate)
            #expect(retrieved == expected)
        }
    }

    @Test func test_deleteObject_effectively_nukes_the_object_from_context() throws {
        try withContext { _, context in
            let count = 30

            insertDummyEntities(count, in: context)
            #expect(context.countObjects(ofType: DummyEntity.self) == count)

            let all = context.allObjects(ofType: DummyEntity.self)

            context.deleteObject(all.first!)
            #expect(context.countObjects(ofType: DummyEntity.self) == (count - 1))
        }
    }

    @Test func test_deleteAllObjects_effectively_nukes_all_of_the_entities() throws {
        try withContext { _, context in
            let count = 50

            insertDummyEntities(count, in: context)

            #expect(context.countObjects(ofType: DummyEntity.self) == count)
            context.deleteAllObjects(ofType: DummyEntity.self)

            #expect(context.countObjects(ofType: DummyEntity.self) == 0)
            #expect(context.allObjects(ofType: DummyEntity.self).count == 0)
        }
    }

    @Test func test_firstObject_matching_predicate_returns_the_expected_object() throws {
        try withContext { _, context in
            let count = 50
            let targetKey = "5"
            insertDummyEntities(count, in: context)

            // Linux: as above.
            let predicate = #Predicate<DummyEntity> { $0.key == targetKey }
            let retrieved = context.firstObject(ofType: DummyEntity.self, matching: predicate)

            #expect(retrieved != nil)
            #expect(retrieved!.key == targetKey)
        }
    }

    @Test func test_firstObject_matching_predicate_returns_nil_if_nothing_was_found() throws {
        try withContext { _, context in
            let count = 5
            let targetKey = "50"
            insertDummyEntities(count, in: context)

            // Linux: as above.
            let predicate = #Predicate<DummyEntity> { $0.key == targetKey }
            let retrieved = context.firstObject(ofType: DummyEntity.self, matching: predicate)

            #expect(retrieved == nil)
        }
    }

    @Test func test_insertNewObject_returns_new_managed_object_of_the_expected_kind() throws {
        try withContext { _, context in
            let entity = context.insertNewObject(ofType: DummyEntity.self)

            // Upcast to AnyObject to make really sure this works
            let anyObject = entity as AnyObject
            #expect(anyObject is DummyEntity)
        }
    }

    @Test func test_saveIfNeeded_effectively_persist_changes_if_any() throws {
        try withContext { _, context in
            #expect(!context.hasChanges)

            _ = context.insertNewObject(ofType: DummyEntity.self)
            #expect(context.hasChanges)

            context.saveIfNeeded()
            #expect(!context.hasChanges)
        }
    }

    @Test func test_loadObject_returns_nil_if_the_object_was_deleted() throws {
        try withContext { _, context in
            let entity = context.insertNewObject(ofType: DummyEntity.self)
            let objectID = entity.objectID

            let retrieved = context.loadObject(ofType: DummyEntity.self, with: objectID)
            #expect(retrieved != nil)

            context.deleteObject(entity)
            _ = try? context.save()

            #expect(context.loadObject(ofType: DummyEntity.self, with: objectID) == nil)
        }
    }

    @Test func test_loadObject_returns_the_expected_object() throws {
        try withContext { _, context in
            let entity = context.insertNewObject(ofType: DummyEntity.self)
            entity.key = "YEAH!"
            entity.value = 42

            let objectID = entity.objectID
            let retrieved = context.loadObject(ofType: DummyEntity.self, with: objectID)

            #expect(retrieved != nil)
            #expect(retrieved!.key == "YEAH!")
            #expect(retrieved!.value == 42)
        }
    }

    // MARK: Storage/StorageTests/CoreData/CoreDataManagerTests.swift

    /// Linux: `CoreDataManager(name:crashLogger:)` keeps its store in the Documents folder; here a
    /// manager in a temporary folder, named as theirs.
    func makeManager() throws -> (SQLiteStorageManager, TemporaryFolder) {
        let folder = try TemporaryFolder(prefix: "woo-examples")
        let manager = try SQLiteStorageManager(model: testModel, configuration: StorageConfiguration(name: "WooCommerce", folder: folder.url))
        return (manager, folder)
    }

    /// Linux: libdispatch drains the main queue on whichever thread serves it (after `dispatchMain()`,
    /// not the process's first thread), so `Thread.current.isMainThread` says nothing about the main
    /// queue there. The tests ask the queue: a key of their own, set on the main queue.
    nonisolated static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    nonisolated static var isOnMainQueue: Bool { DispatchQueue.getSpecific(key: mainQueueKey) == true }

    @Test func test_storeUrl_maps_to_sqlite_file_with_context_identifier() throws {
        let (manager, _) = try makeManager()
        #expect(manager.storeURL.lastPathComponent == "WooCommerce.sqlite")
    }

    @Test func test_derived_storage_is_instantiated_correctly() throws {
        let (manager, _) = try makeManager()
        // Linux: no NSManagedObjectContext to cast to (nor a `parent`); the storages themselves.
        let viewContext = manager.viewStorage
        let derivedContext = manager.writerDerivedStorage

        #expect(derivedContext !== viewContext)
    }

    @Test func test_resetting_CoreData_deletes_preexisting_objects() throws {
        // Arrange
        let (manager, _) = try makeManager()
        manager.reset()
        // Here: viewStorage only reads, so the insert goes through the writer.
        try manager.writeAndWait { viewContext in
            _ = viewContext.insertNewObject(ofType: OrderItem.self)
            viewContext.saveIfNeeded()
        }
        let viewContext = manager.viewStorage
        #expect(viewContext.countObjects(ofType: OrderItem.self) == 1)

        // Action
        manager.reset()

        // Assert
        #expect(viewContext.countObjects(ofType: OrderItem.self) == 0)
    }

    @Test func test_performAndSave_executes_changes_in_background_then_updates_viewContext() async throws {
        // Arrange
        let (manager, _) = try makeManager()
        let viewContext = manager.viewStorage
        #expect(viewContext.countObjects(ofType: Order.self) == 0)

        // Action
        // Swift Testing: a continuation where XCTest waits for an expectation.
        await withCheckedContinuation { (expectation: CheckedContinuation<Void, Never>) in
            manager.performAndSave({ storage in
                #expect(!Self.isOnMainQueue, "Write operations should be performed in the background.")   // Linux: see mainQueueKey.
                insertOrder(storage, id: 1)
            }, completion: {
                #expect(Self.isOnMainQueue, "Completion should be called in the main queue as defined in the function call.")   // Linux: as above.
                expectation.resume()
            }, on: .main)
        }

        // Assert
        #expect(viewContext.countObjects(ofType: Order.self) == 1)
    }

    @Test func test_performAndSave_with_result_returns_correct_result_upon_success() async throws {
        // Arrange
        let (manager, _) = try makeManager()
        let viewContext = manager.viewStorage
        #expect(viewContext.countObjects(ofType: Order.self) == 0)
        let expectedUserID: Int64 = 135

        // Action
        let result: Result<Int64, Error> = await withCheckedContinuation { promise in
            manager.performAndSave({ storage -> Int64 in
                #expect(!Self.isOnMainQueue, "Write operations should be performed in the background.")   // Linux: see mainQueueKey.
                let account = insertOrder(storage, id: expectedUserID)
                return account.orderID
            }, completion: { result in
                promise.resume(returning: result)
            }, on: .main)
        }

        // Assert
        let userID = try result.get()
        #expect(userID == expectedUserID)
        #expect(viewContext.countObjects(ofType: Order.self) == 1)
    }

    @Test func test_performAndSave_with_result_returns_correct_result_upon_failure() async throws {
        enum CoreDataManagerTestsError: Error { case unexpectedFailure }
        // Arrange
        let (manager, _) = try makeManager()

        // Action
        let result: Result<Int64, Error> = await withCheckedContinuation { promise in
            manager.performAndSave({ storage -> Int64 in
                #expect(!Self.isOnMainQueue, "Write operations should be performed in the background.")   // Linux: see mainQueueKey.
                throw CoreDataManagerTestsError.unexpectedFailure
            }, completion: { result in
                promise.resume(returning: result)
            }, on: .main)
        }

        // Assert
        switch result {
        case .success:
            Issue.record("Result should be failure")
        case .failure(let error):
            #expect(error is CoreDataManagerTestsError)
        }
    }

    // MARK: Yosemite's stores: the derived-storage pattern (CouponStore, OrderStoreTests)

    @Test func upsertInBackgroundThenDeleteThroughTheSharedDerivedStorage() async throws {
        let storageManager = try SQLiteStorageManager.inMemory(model: testModel, name: "WooCommerce")
        let store = OrderUpsertStore(storageManager: storageManager)
        let orders = (1...5).map { RemoteOrder(orderID: $0, status: "processing", total: Double($0)) }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            store.upsertStoredOrdersInBackground(readOnlyOrders: orders) { done.resume() }
        }
        #expect(storageManager.viewStorage.countObjects(ofType: Order.self) == 5)
        // Upserting the same orders again changes them in place.
        let changed = orders.map { RemoteOrder(orderID: $0.orderID, status: "completed", total: $0.total) }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            store.upsertStoredOrdersInBackground(readOnlyOrders: changed) { done.resume() }
        }
        let statuses = storageManager.viewStorage.allObjects(ofType: Order.self).map(\.status)
        #expect(statuses == Array(repeating: "completed", count: 5))
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            store.deleteStoredOrder(orderID: 3) { done.resume() }
        }
        #expect(storageManager.viewStorage.allObjects(ofType: Order.self).map(\.orderID) == [1, 2, 4, 5])
    }

    /// OrderStoreTests: an upsert through the derived storage, then inside saveDerivedType's closure a
    /// second one, each followed by saveDerivedType: the second changes nothing.
    @Test func nestedSaveDerivedTypeAsOrderStoreTestsUseIt() async throws {
        let storageManager = try SQLiteStorageManager.inMemory(model: testModel, name: "WooCommerce")
        let orderStore = OrderUpsertStore(storageManager: storageManager)
        let changes = storageManager.changes()
        let sampleOrder = RemoteOrder(orderID: 963, status: "processing", total: 10)

        await withCheckedContinuation { (backgroundSaveExpectation: CheckedContinuation<Void, Never>) in
            let derivedContext = storageManager.writerDerivedStorage

            derivedContext.perform {
                orderStore.upsertStoredOrder(readOnlyOrder: sampleOrder, in: derivedContext)
            }

            storageManager.saveDerivedType(derivedStorage: derivedContext) {

                // Secondary Save: Expect ZERO new Upsert Events
                derivedContext.perform {
                    orderStore.upsertStoredOrder(readOnlyOrder: sampleOrder, in: derivedContext)
                }

                storageManager.saveDerivedType(derivedStorage: derivedContext) {
                    backgroundSaveExpectation.resume()
                }
            }
        }
        // Here: WooCommerce counts upsert events with an EntityListener; the change stream says the same.
        var iterator = changes.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.inserted.count == 1)
        try await storageManager.write { storage in _ = insertOrder(storage, id: 1) }   // a marker
        let second = await iterator.next()
        #expect(second?.inserted.count == 1 && second?.updated.isEmpty == true,
                "the second upsert wrote the same values: \(String(describing: second))")
        #expect(storageManager.viewStorage.countObjects(ofType: Order.self) == 2)
    }

    // MARK: Yosemite/YosemiteTests/Tools/ResultsControllerTests.swift

    /// Here: their sample accounts are inserted through `viewStorage`, which only reads here; the
    /// writes go through the writer, and the controller learns of them when the main actor next runs.
    func insertSampleOrder(_ storageManager: SQLiteStorageManager, id: Int64) throws {
        try storageManager.writeAndWait { storage in _ = insertOrder(storage, id: id) }
    }

    @Test func testResultsControllerStartsEmptySectionAfterPerformingFetch() throws {
        let storageManager = try SQLiteStorageManager.inMemory(model: testModel)
        let viewStorage = storageManager.viewStorage
        // Linux: no NSSortDescriptor(key:); as above.
        let resultsController = ResultsController<Order>(viewStorage: viewStorage, sortedBy: [SortDescriptor(\.orderID)])
        #expect(resultsController.sections.count == 0)

        try? resultsController.performFetch()

        #expect(resultsController.sections.count == 1)
        #expect(resultsController.sections.first?.objects.count == 0)
        #expect(resultsController.sections.first?.numberOfObjects == 0)
    }

    @Test func testResultsControllerPicksUpEntitiesInsertedAfterInstantiation() async throws {
        let storageManager = try SQLiteStorageManager.inMemory(model: testModel)
        let viewStorage = storageManager.viewStorage
        let resultsController = ResultsController<Order>(viewStorage: viewStorage, sortedBy: [SortDescriptor(\.orderID)])
        try? resultsController.performFetch()

        try insertSampleOrder(storageManager, id: 1)
        viewStorage.saveIfNeeded()
        #expect(await settle(resultsController, storageManager))   // Here: see insertSampleOrder.

        #expect(resultsController.sections.count == 1)
        #expect(resultsController.sections.first?.objects.count == 1)
        #expect(resultsController.sections.first?.numberOfObjects == 1)
    }

    @Test func testResettingStorageIsMappedIntoOnResetClosure() async throws {
        let storageManager = try SQLiteStorageManager.inMemory(model: testModel)
        let viewStorage = storageManager.viewStorage
        let resultsController = ResultsController<Order>(viewStorage: viewStorage, sortedBy: [SortDescriptor(\.orderID)])
        try? resultsController.performFetch()

        try insertSampleOrder(storageManager, id: 1)
        try insertSampleOrder(storageManager, id: 2)

        viewStorage.saveIfNeeded()
        #expect(await settle(resultsController, storageManager))   // Here: see insertSampleOrder.
        #expect(resultsController.fetchedObjects.count == 2)

        // Swift Testing: a continuation for the expectation.
        await withCheckedContinuation { (expectation: CheckedContinuation<Void, Never>) in
            resultsController.onDidResetContent = {
                expectation.resume()
            }

            storageManager.reset()
        }
        // Here: after onDidResetContent rather than right after reset() (ManagedStorage.docc's `LiveResults.md`).
        #expect(resultsController.isEmpty)
    }

    @Test func test_fetchLimit_fetches_the_specified_count() throws {
        let storageManager = try SQLiteStorageManager.inMemory(model: testModel)
        for id in 1...5 { try insertSampleOrder(storageManager, id: Int64(id)) }
        let resultsController = ResultsController<Order>(storageManager: storageManager, fetchLimit: 3,
                                                         sortedBy: [SortDescriptor(\.orderID)])
        try resultsController.performFetch()
        #expect(resultsController.numberOfObjects == 3)
    }

    // MARK: WooCommerce/Classes/Tools/ResultsController+UIKit.swift

    @Test func forwardingEventsKeepsATableViewConsistent() async throws {
        let seed = TestSeed.make()
        print("WooDocumentedExamplesTests.forwardingEventsKeepsATableViewConsistent: seed \(seed)")
        var rng = SeededGenerator(seed: seed)
        let storageManager = try SQLiteStorageManager.inMemory(model: testModel)
        let resultsController = ResultsController<Order>(storageManager: storageManager, sectionNameKeyPath: "status",
                                                         sortedBy: [SortDescriptor(\.total)])
        try resultsController.performFetch()
        let tableView = FakeTableView(rowsPerSection: resultsController.sections.map(\.numberOfObjects))
        tableView.dataSourceCounts = { resultsController.sections.map(\.numberOfObjects) }
        resultsController.startForwardingEvents(to: tableView)
        let statuses = ["pending", "processing", "completed"]
        for step in 0..<40 {
            let ids = (0..<rng.int(in: 1...4)).map { _ in Int64(rng.int(in: 1...12)) }
            let picks = ids.map { ($0, rng.pick(statuses), Double(rng.int(in: 0...50)), rng.chance(0.25)) }
            try await storageManager.write { storage in
                for (id, status, total, delete) in picks {
                    let order = storage.loadOrder(orderID: id)
                    if delete {
                        if let order { storage.deleteObject(order) }
                    } else {
                        let order = order ?? storage.insertNewObject(ofType: Order.self)
                        order.update(with: RemoteOrder(orderID: id, status: status, total: total))
                    }
                }
            }
            if step == 30 { storageManager.reset() }
            #expect(await settle(resultsController, storageManager))
            #expect(tableView.inconsistencies.isEmpty, "step \(step), seed \(seed): \(tableView.inconsistencies)")
        }
        #expect(tableView.rowsPerSection == resultsController.sections.map(\.numberOfObjects))
        #expect(tableView.log.contains("reloadData"), "the reset reached the table as reloadData")
        resultsController.stopForwardingEvents()
    }
}
