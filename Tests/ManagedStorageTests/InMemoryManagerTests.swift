import Foundation
import ManagedStorage
import ManagedTestModel
import Synchronization
import Testing
import TestSupport

/// `SQLiteStorageManager.inMemory(model:)`: independent stores, no file, and what a file-backed manager
/// does (the suites parameterized by `StoreKind` run the rest on both).
@MainActor
@Suite struct InMemoryManagerTests {
    @Test func twoInMemoryManagersAreIndependentEvenWithOneName() async throws {
        let a = try TestStore(.memory, name: "Same")
        let b = try TestStore(.memory, name: "Same")
        try await a.manager.write { storage in for id in 1...3 { insertOrder(storage, id: Int64(id), items: 1) } }
        #expect(b.manager.viewStorage.countObjects(ofType: Order.self) == 0)

        let controllerB = ResultsController<Order>(storageManager: b.manager, sortedBy: [SortDescriptor(\.orderID)])
        let recorderB = CallbackRecorder(controllerB)
        try controllerB.performFetch()
        let notified = Mutex<[ObjectIdentifier]>([])
        let observer = NotificationCenter.default.addObserver(forName: .StorageManagerDidResetStorage, object: nil, queue: nil) { note in
            if let object = note.object as AnyObject? { notified.withLock { $0.append(ObjectIdentifier(object)) } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        try await a.manager.write { storage in _ = insertOrder(storage, id: 4) }
        a.manager.reset()
        try await b.manager.write { storage in _ = insertOrder(storage, id: 100) }
        #expect(await settle(controllerB, b.manager))
        #expect(controllerB.fetchedObjects.map(\.orderID) == [100], "B saw only its own commit")
        #expect(recorderB.resets == 0, "A's reset is not B's")
        #expect(recorderB.take().flatMap(\.objects).map(\.id) == [100])
        #expect(a.manager.viewStorage.countObjects(ofType: Order.self) == 0)
        #expect(b.manager.viewStorage.countObjects(ofType: Order.self) == 1)
        #expect(notified.withLock { $0.filter { $0 == ObjectIdentifier(a.manager) }.count } == 1)
        #expect(!notified.withLock { $0.contains(ObjectIdentifier(b.manager)) })
        // Row ids are per store too.
        let firstB = try #require(b.manager.viewStorage.firstObject(ofType: Order.self))
        #expect(firstB.toReadOnly().objectID.rowID == 1)
    }

    @Test(arguments: StoreKind.allCases) func storeURLNamesTheFileOrNoFile(_ kind: StoreKind) throws {
        let store = try TestStore(kind, name: "WooCommerce")
        let url = store.manager.storeURL
        #expect(url.lastPathComponent == "WooCommerce.sqlite")
        #expect(url == store.manager.fileURL)
        switch kind {
        case .file:
            #expect(url.isFileURL && FileManager.default.fileExists(atPath: url.path))
        case .memory:
            #expect(!url.isFileURL && url.scheme == "memory")
            #expect(throws: (any Error).self) { try FileManager.default.removeItem(at: url) }
            let written = try FileManager.default.contentsOfDirectory(atPath: store.folder.url.path)
            #expect(written.isEmpty, "nothing on disk: \(written)")
        }
    }

    @Test(arguments: StoreKind.allCases) func resetPostsWooCommercesNotificationAndOurAlias(_ kind: StoreKind) async throws {
        #expect(Notification.Name.StorageManagerDidResetStorage == .storageManagerDidResetStorage)
        #expect(Notification.Name.StorageManagerDidResetStorage.rawValue == "StorageManagerDidResetStorage")
        let store = try TestStore(kind)
        try await store.manager.write { storage in _ = insertOrder(storage, id: 1) }
        let posted = Mutex(0)
        let observer = NotificationCenter.default.addObserver(forName: NSNotification.Name.StorageManagerDidResetStorage,
                                                              object: store.manager, queue: nil) { _ in posted.withLock { $0 += 1 } }
        defer { NotificationCenter.default.removeObserver(observer) }
        store.manager.reset()
        #expect(posted.withLock { $0 } == 1, "posted before reset() returned, on the caller's thread")
        #expect(store.manager.viewStorage.countObjects(ofType: Order.self) == 0)
    }

    /// A reset lands between writes submitted before and after it, from another thread, while a
    /// controller follows: it ends equal to a fresh fetch holding exactly the later writes, with one
    /// reset callback.
    @Test(arguments: StoreKind.allCases) func resetAmongWritesInFlightWhileAControllerIsLive(_ kind: StoreKind) async throws {
        let store = try TestStore(kind)
        let manager = store.manager
        let controller = ResultsController<Order>(storageManager: manager, sectionNameKeyPath: "status",
                                                  sortedBy: [SortDescriptor(\.orderID)])
        let recorder = CallbackRecorder(controller)
        try controller.performFetch()
        let (lastWrite, lastWriteDone) = AsyncStream<Void>.makeStream()
        DispatchQueue.global().async {
            func submit(_ ids: ClosedRange<Int>) {
                for id in ids {
                    let status = id % 3 == 0 ? "completed" : "processing"
                    manager.performAndSave({ (storage: StorageType) -> Void in
                        insertOrder(storage, id: Int64(id), status: status)
                    }, completion: { if id == 60 { lastWriteDone.yield(); lastWriteDone.finish() } }, on: .global())
                }
            }
            submit(1...30)
            // Waits for the 30 writes queued before it; the next 30 queue up behind it.
            manager.reset()
            submit(31...60)
        }
        for await _ in lastWrite { break }
        #expect(await settle(controller, manager))
        let fresh = manager.viewStorage.allObjects(ofType: Order.self, sortedBy: [SortDescriptor(\.status), SortDescriptor(\.orderID)])
        #expect(fresh.map(\.orderID).sorted() == (31...60).map { Int64($0) }, "the writes before the reset are gone, the ones after it stay")
        #expect(controller.fetchedObjects.map(\.orderID) == fresh.map(\.orderID))
        #expect(controller.sections.map(\.name) == ["completed", "processing"])
        #expect(recorder.resets == 1)
        #expect(recorder.misplaced.isEmpty, "\(recorder.misplaced)")
        #expect(store.errors.isEmpty, "\(store.errors)")
    }
}
