import Foundation
import ManagedStorage
import Synchronization

/// A `StorageManagerType` test double as ManagedStorage.docc's `DerivedStoragesAndTestDoubles.md` describes it: a plain `final class`,
/// `Sendable` checked by the compiler because its only mutable state is in a `Mutex`, delegating to
/// an in-memory manager and recording what it was asked to do.
///
/// It implements only the protocol's four requirements without defaults; `writerDerivedStorage`
/// and `saveDerivedType` come from the protocol's default implementations, through its own
/// `performAndSave`.
final class MockStorageManager: StorageManagerType {
    let backing: SQLiteStorageManager
    private let recorded = Mutex<[String]>([])

    init(model: StorageModel) throws {
        backing = try SQLiteStorageManager.inMemory(model: model, name: "Mock")
    }

    /// The calls made so far, in order.
    var calls: [String] { recorded.withLock { $0 } }

    @MainActor var viewStorage: StorageType { backing.viewStorage }

    func performAndSave(_ operation: @escaping @Sendable (StorageType) -> Void,
                        completion: (@Sendable () -> Void)?, on queue: DispatchQueue) {
        recorded.withLock { $0.append("performAndSave") }
        backing.performAndSave(operation, completion: completion, on: queue)
    }

    func performAndSave<T: Sendable>(_ operation: @escaping @Sendable (StorageType) throws -> T,
                                     completion: @escaping @Sendable (Result<T, Error>) -> Void,
                                     on queue: DispatchQueue) {
        recorded.withLock { $0.append("performAndSave<\(T.self)>") }
        backing.performAndSave(operation, completion: completion, on: queue)
    }

    func reset() {
        recorded.withLock { $0.append("reset") }
        backing.reset()
        // WooCommerce's mock posts the notification itself, naming the mock.
        NotificationCenter.default.post(name: .StorageManagerDidResetStorage, object: self)
    }
}
