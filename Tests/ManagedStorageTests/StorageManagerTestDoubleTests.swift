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

    /// The compiler's view: a mock with plain mutable state is not `Sendable`, so it must say how it
    /// is safe (a lock and `@unchecked Sendable`, or its state in a `Mutex`).
    @Test func aMockMustStateHowItIsSendable() async throws {
        let toolchain = try SendableCompileTests.Toolchain()
        func mock(_ conformance: String, state: String) -> String {
            """
            import Foundation
            import ManagedStorage
            import Synchronization

            final class MockStorageManager: \(conformance) {
                let inner: SQLiteStorageManager
                \(state)
                init(inner: SQLiteStorageManager) { self.inner = inner }
                @MainActor var viewStorage: StorageType { inner.viewStorage }
                func performAndSave(_ operation: @escaping @Sendable (StorageType) -> Void,
                                    completion: (@Sendable () -> Void)?, on queue: DispatchQueue) {
                    inner.performAndSave(operation, completion: completion, on: queue)
                }
                func performAndSave<T: Sendable>(_ operation: @escaping @Sendable (StorageType) throws -> T,
                                                 completion: @escaping @Sendable (Result<T, Error>) -> Void,
                                                 on queue: DispatchQueue) {
                    inner.performAndSave(operation, completion: completion, on: queue)
                }
                func reset() { inner.reset() }
            }

            func use(_ storageManager: any StorageManagerType) -> StorageType { storageManager.writerDerivedStorage }
            func make(_ inner: SQLiteStorageManager) -> StorageType { use(MockStorageManager(inner: inner)) }
            """
        }
        let plain = try await toolchain.typecheck(mock("StorageManagerType", state: "var resets = 0"), swiftVersion: "6")
        #expect(plain.termination != .exited(0), "a mock with a plain var must not pass as Sendable")
        #expect(plain.standardError.contains("Sendable"), "\(plain.standardError.prefix(2000))")
        let unchecked = try await toolchain.typecheck(mock("StorageManagerType, @unchecked Sendable", state: "var resets = 0"),
                                                      swiftVersion: "6")
        #expect(unchecked.termination == .exited(0), "\(unchecked.standardError.prefix(2000))")
        let mutex = try await toolchain.typecheck(mock("StorageManagerType", state: "let resets = Mutex(0)"), swiftVersion: "6")
        #expect(mutex.termination == .exited(0), "\(mutex.standardError.prefix(2000))")
    }
}
