import Foundation
import Testing
import TestSupport

/// A test double of `StorageManagerType` under Swift 6, as the compiler sees it (the doubles themselves
/// run in WooCommerceExamplesTests).
@Suite struct StorageManagerTestDoubleCompileTests {
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
