import Foundation
import GRDB
import ManagedStorage
import ManagedTestModel
import Synchronization
import TestSupport

/// Where a test's store lives: each behaviour a file-backed manager has, an in-memory one must have.
enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case file
    case memory

    var description: String { rawValue }
}

/// A manager on a fresh store in its own temporary folder (or in memory); errors it reports are collected.
final class TestStore: @unchecked Sendable {
    let folder: TemporaryFolder
    let manager: SQLiteStorageManager
    let kind: StoreKind
    let log = ErrorLog()

    init(_ kind: StoreKind = .file, name: String = "Store", model: StorageModel = testModel,
         configure: (inout StorageConfiguration) -> Void = { _ in }) throws {
        self.kind = kind
        folder = try TemporaryFolder(prefix: "managed")
        let log = self.log
        switch kind {
        case .file:
            var configuration = StorageConfiguration(name: name, folder: folder.url)
            configure(&configuration)
            configuration.onError = { error in log.append(error) }
            manager = try SQLiteStorageManager(model: model, configuration: configuration)
        case .memory:
            manager = try SQLiteStorageManager.inMemory(model: model, name: name)
            manager.onError = { error in log.append(error) }
        }
    }

    var errors: [StorageError] { log.errors }

    /// Runs the generic `performAndSave` and waits for its completion.
    func perform<T: Sendable>(_ operation: @escaping @Sendable (StorageType) throws -> T) async -> Result<T, Error> {
        await withCheckedContinuation { continuation in
            manager.performAndSave(operation, completion: { continuation.resume(returning: $0) },
                                   on: DispatchQueue.global())
        }
    }

    /// Runs the `Void` `performAndSave` and waits for its completion.
    func performVoid(_ operation: @escaping @Sendable (StorageType) -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            manager.performAndSave(operation, completion: { continuation.resume() }, on: DispatchQueue.global())
        }
    }
}

/// Runs `sql` on the store file through a connection of its own (another program's).
func rawSQL(_ path: String, _ sql: String) throws {
    let queue = try DatabaseQueue(path: path)
    try queue.writeWithoutTransaction { try $0.execute(sql: sql) }
    try queue.close()
}

/// The errors a manager reported, in order.
final class ErrorLog: Sendable {
    private let entries = Mutex<[StorageError]>([])
    func append(_ error: StorageError) { entries.withLock { $0.append(error) } }
    var errors: [StorageError] { entries.withLock { $0 } }
}
