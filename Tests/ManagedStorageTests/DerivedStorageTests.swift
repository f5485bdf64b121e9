import Foundation
import ManagedStorage
import ManagedTestModel
import Synchronization
import Testing
import TestSupport

/// `writerDerivedStorage` and `saveDerivedType`: each `perform` block is one operation, waited for;
/// inside an operation the derived storage is that operation's storage; outside, it is misuse.
@Suite struct DerivedStorageTests {
    @Test(arguments: StoreKind.allCases) func performCommitsTheBlockBeforeReturning(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let derivedStorage = store.manager.writerDerivedStorage
        derivedStorage.perform {
            insertOrder(derivedStorage, id: 1, items: 2)
            insertOrder(derivedStorage, id: 2)
        }
        // No waiting: the block committed before perform returned.
        let counts = try store.manager.read { [$0.countObjects(ofType: Order.self), $0.countObjects(ofType: OrderItem.self)] }
        #expect(counts == [2, 2])
        #expect(store.manager.writerDerivedStorage === derivedStorage, "one shared instance, as WooCommerce's stores expect")
        #expect(store.errors.isEmpty, "\(store.errors)")
    }

    @Test(arguments: StoreKind.allCases) func aFailedBlockRollsBackIsReportedAndStillCompletes(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let derivedStorage = store.manager.writerDerivedStorage
        let completed = Mutex(false)
        derivedStorage.perform {
            let customer = derivedStorage.insertNewObject(ofType: Customer.self)
            insertOrder(derivedStorage, id: 1).customer = customer
            derivedStorage.deleteObject(customer)   // .deny: the operation fails
            store.manager.saveDerivedType(derivedStorage: derivedStorage) { completed.withLock { $0 = true } }
        }
        #expect(completed.withLock { $0 }, "the completion ran after the rolled-back block, not never")
        #expect(try store.manager.read { $0.countObjects(ofType: Order.self) } == 0)
        #expect(store.errors == [.deleteDenied(entity: "Customer", relationship: "orders")])
    }

    @Test(arguments: StoreKind.allCases) func outsideABlockItIsMisuseAndChangesNothing(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let derivedStorage = store.manager.writerDerivedStorage
        let order = derivedStorage.insertNewObject(ofType: Order.self)
        order.orderID = 5
        derivedStorage.saveIfNeeded()
        #expect(derivedStorage.countObjects(ofType: Order.self) == 0)
        #expect(derivedStorage.firstObject(ofType: Order.self) == nil)
        #expect(!derivedStorage.hasChanges)
        #expect(try store.manager.read { $0.countObjects(ofType: Order.self) } == 0)
        let misuses = store.errors.filter { if case .misuse = $0 { true } else { false } }
        #expect(misuses.count == 3, "insert, count and first were refused: \(store.errors)")
        #expect("\(misuses.first.map { "\($0)" } ?? "")".contains("insertNewObject(ofType: Order)"))
    }

    @Test(arguments: StoreKind.allCases) func aNestedPerformJoinsTheOperationItIsIn(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let derivedStorage = store.manager.writerDerivedStorage
        let nestedSawOuter = Mutex(false)
        derivedStorage.perform {
            insertOrder(derivedStorage, id: 1)
            derivedStorage.perform {
                insertOrder(derivedStorage, id: 2)
                nestedSawOuter.withLock { $0 = derivedStorage.countObjects(ofType: Order.self) == 2 }
            }
            // Fails the operation after the nested block: if that block had been an operation of its
            // own, order 2 would survive.
            let customer = derivedStorage.insertNewObject(ofType: Customer.self)
            derivedStorage.firstObject(ofType: Order.self)?.customer = customer
            derivedStorage.deleteObject(customer)
        }
        #expect(nestedSawOuter.withLock { $0 })
        #expect(try store.manager.read { $0.countObjects(ofType: Order.self) } == 0, "both blocks were one transaction")
    }

    @Test(arguments: StoreKind.allCases) func insideAnyOperationItIsThatOperationsStorage(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let derived = UncheckedStorage(store.manager.writerDerivedStorage)
        let same = try await store.perform { storage -> Bool in
            let inserted = derived.storage.insertNewObject(ofType: Order.self)
            inserted.orderID = 3
            return storage.firstObject(ofType: Order.self) === inserted && derived.storage.hasChanges == storage.hasChanges
        }.get()
        #expect(same)
        #expect(try store.manager.read { $0.countObjects(ofType: Order.self) } == 1)
        #expect(store.errors.isEmpty, "\(store.errors)")
    }

    @Test(arguments: StoreKind.allCases) func saveDerivedTypeInsideABlockRunsAfterTheCommit(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let derivedStorage = store.manager.writerDerivedStorage
        let seen = Mutex<[Int]>([])
        let manager = store.manager
        derivedStorage.perform {
            insertOrder(derivedStorage, id: 1)
            manager.saveDerivedType(derivedStorage: derivedStorage) {
                // A reader of its own: it sees only committed transactions.
                seen.withLock { $0.append((try? manager.read { $0.countObjects(ofType: Order.self) }) ?? -1) }
            }
            seen.withLock { $0.append(-2) }
        }
        #expect(seen.withLock { $0 } == [-2, 1], "the closure ran after the block, once its insert was committed")
        // Outside a block it runs at once, on the caller's thread.
        let ranAtOnce = Mutex(false)
        manager.saveDerivedType(derivedStorage: derivedStorage) { ranAtOnce.withLock { $0 = true } }
        #expect(ranAtOnce.withLock { $0 })
    }

    @Test(arguments: StoreKind.allCases) func anotherThreadInsideABlockDoesNotGetTheBlocksStorage(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let derivedStorage = store.manager.writerDerivedStorage
        let fromOtherThread = Mutex(-1)
        derivedStorage.perform {
            insertOrder(derivedStorage, id: 1)
            let done = DispatchSemaphore(value: 0)
            let unchecked = UncheckedStorage(derivedStorage)
            Thread.detachNewThread {
                fromOtherThread.withLock { $0 = unchecked.storage.countObjects(ofType: Order.self) }
                done.signal()
            }
            done.wait()
        }
        #expect(fromOtherThread.withLock { $0 } == 0, "the other thread was refused, not handed the writer's storage")
        #expect(store.errors.contains { if case .misuse = $0 { true } else { false } }, "\(store.errors)")
        #expect(try store.manager.read { $0.countObjects(ofType: Order.self) } == 1, "the block itself committed")
    }

    @Test(arguments: StoreKind.allCases) @MainActor
    func aSaveThroughTheDerivedStorageReachesViewStorageAndControllers(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        try await store.manager.write { storage in for id in 1...3 { insertOrder(storage, id: Int64(id)) } }
        let controller = ResultsController<Order>(storageManager: store.manager, sortedBy: [SortDescriptor(\.orderID)])
        let recorder = CallbackRecorder(controller)
        try controller.performFetch()
        let objectID = try #require(controller.fetchedObjects.first?.objectID)
        let derivedStorage = store.manager.writerDerivedStorage
        derivedStorage.perform {
            let order = derivedStorage.loadObject(ofType: Order.self, with: objectID)
            order?.status = "completed"
            derivedStorage.saveIfNeeded()
        }
        #expect(store.manager.viewStorage.loadObject(ofType: Order.self, with: objectID)?.status == "completed")
        #expect(await settle(controller, store.manager))
        #expect(controller.fetchedObjects.first?.status == "completed")
        #expect(recorder.take().flatMap(\.objects).map(\.type) == [.update])
    }

    /// Threads writing through one shared derived storage at once, each block a read-modify-write of a
    /// shared counter plus an insert or a delete, while the main actor reads: nothing is lost.
    @Test(arguments: StoreKind.allCases) @MainActor func concurrentBlocksLoseNothing(_ kind: StoreKind) async throws {
        let seed = TestSeed.make()
        print("DerivedStorageTests.concurrentBlocksLoseNothing(\(kind)): seed \(seed)")
        let store = try TestStore(kind)
        try await store.manager.write { storage in
            let counter = storage.insertNewObject(ofType: Counter.self)
            counter.name = "blocks"
        }
        let derivedStorage = UncheckedStorage(store.manager.writerDerivedStorage)
        let manager = store.manager
        let threads = 6, blocksPerThread = 30
        let completions = Atomic<Int>(0)
        let expectedOrders = Atomic<Int>(0)
        let controller = ResultsController<Order>(storageManager: manager, sortedBy: [SortDescriptor(\.orderID)])
        try controller.performFetch()
        let writers = Task.detached {
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                var rng = SeededGenerator(seed: seed &+ UInt64(thread))
                let storage = derivedStorage.storage
                for block in 0..<blocksPerThread {
                    let id = Int64(thread * 1000 + block)
                    let deleteOne = block > 0 && rng.chance(0.3)
                    let previous = id - 1
                    storage.perform {
                        let counter = storage.firstObject(ofType: Counter.self, matching: #Predicate { $0.name == "blocks" })
                        counter?.value += 1
                        if deleteOne, let victim = storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == previous }) {
                            storage.deleteObject(victim)
                        }
                        insertOrder(storage, id: id)
                    }
                    expectedOrders.add(deleteOne ? 0 : 1, ordering: .relaxed)
                    manager.saveDerivedType(derivedStorage: storage) { completions.add(1, ordering: .relaxed) }
                }
            }
        }
        var reads = 0
        var last = 0
        var decreasing = false
        let deadline = ContinuousClock.now + DeadlineScale.scaled(.seconds(300))
        while completions.load(ordering: .relaxed) < threads * blocksPerThread && ContinuousClock.now < deadline {
            let value = store.manager.viewStorage.firstObject(ofType: Counter.self).map { Int($0.value) } ?? -1
            if value < last { decreasing = true }
            last = max(last, value)
            reads += 1
            try await Task.sleep(for: .milliseconds(1))
        }
        await writers.value
        #expect(completions.load(ordering: .relaxed) == threads * blocksPerThread, "every saveDerivedType completion ran")
        #expect(!decreasing, "a reader saw the counter go back")
        let (value, orders) = try manager.read { storage in
            (storage.firstObject(ofType: Counter.self)?.value ?? -1, storage.countObjects(ofType: Order.self))
        }
        #expect(value == Int64(threads * blocksPerThread), "no lost update, seed \(seed)")
        #expect(orders == expectedOrders.load(ordering: .relaxed), "seed \(seed)")
        #expect(store.errors.isEmpty, "\(store.errors)")
        #expect(await settle(controller, manager))
        #expect(controller.numberOfObjects == orders, "the controller followed every block")
        print("DerivedStorageTests.concurrentBlocksLoseNothing(\(kind)): \(threads * blocksPerThread) blocks, \(orders) orders left, \(reads) reads meanwhile")
    }
}

/// A storage handed to another thread on purpose (the tests check what it does there).
struct UncheckedStorage: @unchecked Sendable {
    let storage: StorageType
    init(_ storage: StorageType) { self.storage = storage }
}
