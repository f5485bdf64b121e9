import Foundation
import GRDB

extension SQLiteStorageManager {
    /// A manager whose store lives in memory, for tests and previews: it starts empty and is gone with
    /// the manager.
    ///
    /// ```swift
    /// let storageManager = try SQLiteStorageManager.inMemory(model: StorageModel(entities: [Order.self, OrderItem.self]))
    /// storageManager.performAndSave({ storage in
    ///     storage.insertNewObject(ofType: Order.self).orderID = 1
    /// }, completion: nil, on: .main)
    /// ```
    ///
    /// It behaves as a file-backed manager does: `viewStorage`, both `performAndSave`s, `write`,
    /// `read`, ``writerDerivedStorage``, ``ResultsController``s and `results(...)` sequences that
    /// follow every commit, `reset()` with its notification, the error and change streams. Each call
    /// makes a separate store: two in-memory managers never see each other's objects, even with the
    /// same `name`.
    ///
    /// What differs: the store is one SQLite connection (an in-memory database belongs to the
    /// connection that made it and cannot use a write-ahead log), so a read waits while an operation
    /// is running, where a file-backed store's readers never wait. There is no file, so no other
    /// process, durability, migration or corruption recovery; ``storeURL`` is
    /// `memory:///<name>.sqlite`, which no file operation accepts.
    ///
    /// - Parameters:
    ///   - model: The entities.
    ///   - name: Names the store in ``storeURL``, errors and the writer's queue label.
    /// - Throws: ``StorageError/model(_:)`` for entity declarations that do not fit together;
    ///   ``StorageError/cannotOpen(file:cause:)`` or ``StorageError/sqlite(code:message:sql:)`` when
    ///   SQLite cannot make the database or its tables; ``StorageError/misuse(_:)`` for a `name` that
    ///   cannot be part of a URL.
    public static func inMemory(model: StorageModel, name: String = "InMemory") throws(StorageError) -> SQLiteStorageManager {
        let resolved = try model.resolve()
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        guard let url = URL(string: "memory:///\(encoded).sqlite") else {
            throw .misuse("inMemory(model:name:): \(name) cannot name a store")
        }
        // The folder is never used: nothing is written to disk.
        let configuration = StorageConfiguration(name: name, folder: FileManager.default.temporaryDirectory)
        let hub = StorageEventHub(label: url.lastPathComponent, onError: nil)
        let opener = StoreOpener(model: model, resolved: resolved, configuration: configuration, report: { hub.report($0) })
        let queue = try opener.openInMemory(description: url.absoluteString)
        return SQLiteStorageManager(model: resolved, configuration: configuration, hub: hub, database: queue, fileURL: url,
                                    lock: nil, recovered: nil, isInMemory: true)
    }
}
