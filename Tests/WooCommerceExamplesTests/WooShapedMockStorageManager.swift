import Foundation
import ManagedStorage

/// The shape of WooCommerce's `MockStorageManager`, ported as little as Swift 6 allows: plain `var`
/// state, so `@unchecked Sendable` with a lock the class keeps itself, and every write run at once on
/// the caller's thread (theirs used the view context "for simplicity in tests").
final class WooShapedMockStorageManager: StorageManagerType, @unchecked Sendable {
    private let inner: SQLiteStorageManager
    private let lock = NSLock()
    private var writes = 0

    init(model: StorageModel) throws {
        inner = try SQLiteStorageManager.inMemory(model: model, name: "WooCommerce")
    }

    var numberOfWrites: Int { lock.withLock { writes } }

    @MainActor var viewStorage: StorageType { inner.viewStorage }

    func performAndSave(_ operation: @escaping @Sendable (StorageType) -> Void,
                        completion: (@Sendable () -> Void)?, on queue: DispatchQueue) {
        lock.withLock { writes += 1 }
        do {
            try inner.writeAndWait { storage in operation(storage) }
        } catch {
            // The Void form has no result: WooCommerce's mock would have crashed here.
        }
        queue.async { completion?() }
    }

    func performAndSave<T: Sendable>(_ operation: @escaping @Sendable (StorageType) throws -> T,
                                     completion: @escaping @Sendable (Result<T, Error>) -> Void,
                                     on queue: DispatchQueue) {
        lock.withLock { writes += 1 }
        let result = Result { try inner.writeAndWait { storage in try operation(storage) } }
        queue.async { completion(result) }
    }

    func reset() {
        inner.reset()
    }
}
