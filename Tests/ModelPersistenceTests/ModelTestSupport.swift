import FileStorageKit
import Foundation
import PlistCodec
import Synchronization
import TestSupport
@testable import ModelPersistence

/// Runs `body` with models stored in a fresh temporary folder (bound through the task-local
/// `PersistenceLocation.folder`, never a process-wide setting).
/// Runs `body` with models stored in a fresh `MemoryFolder` (bound through the task-local
/// `PersistenceLocation.storage`): for tests where no real file is the point.
func withMemoryLocation<R>(_ body: (MemoryFolder) throws -> R) throws -> R {
    let memory = MemoryFolder()
    return try PersistenceLocation.$storage.withValue(.memory(memory)) { try body(memory) }
}

/// The same, for async tests.
func withMemoryLocation<R>(_ body: (MemoryFolder) async throws -> R) async throws -> R {
    let memory = MemoryFolder()
    return try await PersistenceLocation.$storage.withValue(.memory(memory)) { try await body(memory) }
}

func withTemporaryLocation<R>(_ body: (TemporaryFolder) throws -> R) throws -> R {
    let temp = try TemporaryFolder(prefix: "mp-test")
    return try PersistenceLocation.$folder.withValue(temp.url) { try body(temp) }
}

/// The same, for async tests.
func withTemporaryLocation<R>(_ body: (TemporaryFolder) async throws -> R) async throws -> R {
    let temp = try TemporaryFolder(prefix: "mp-test")
    return try await PersistenceLocation.$folder.withValue(temp.url) { try await body(temp) }
}

/// How many times the instance wrote its file.
func writeCount<Model: PersistedModel>(_ model: Model) -> Int {
    model._$persistence.state.withLock { $0.writeCount }
}

/// A flag an `@Sendable` observer closure can set.
final class Flag: Sendable {
    private let value = Atomic<Int>(0)
    func raise() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// Lets a test hand a (non-Sendable) model to other threads; the test itself serializes access.
struct Shared<Value>: @unchecked Sendable {
    let value: Value
}
