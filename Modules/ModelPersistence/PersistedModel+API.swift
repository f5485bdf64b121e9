import Foundation
import FileStorageKit

extension PersistedModel {
    // MARK: The file

    /// The model's file in the folder in effect where this is called (see `PersistenceLocation`):
    /// `<folder>/<document name>.storage.plist`.
    public static var url: URL { PersistenceLocation.url(forDocument: _$persistedDocumentName) }

    /// Whether the model's file exists (in the folder in effect where this is called).
    public static var isPersisted: Bool {
        PersistenceLocation.currentStorage.fileExists(PersistenceLocation.fileName(forDocument: _$persistedDocumentName))
    }

    /// Removes the model's file, durably, under the lock. A missing file is not an error.
    ///
    /// Instances already in use keep their values; the next set of one of them writes a fresh file
    /// from all of its values. The lock's sidecar file (`.<name>.lock`) stays, as locks need it to.
    ///
    /// - Throws: `PersistenceError` (operation `.delete`) when the file could not be removed.
    public static func delete() throws(PersistenceError) {
        let url = self.url
        let storage = PersistenceLocation.currentStorage
        guard storage.isMemory || FileManager.default.fileExists(atPath: url.deletingLastPathComponent().path) else { return }
        let document = PersistenceFile.document(PersistenceLocation.fileName(forDocument: _$persistedDocumentName),
                                                in: storage, format: persistenceFormat)
        do {
            try document.remove()
        } catch {
            throw PersistenceError(documentName: _$persistedDocumentName, url: url, operation: .delete, cause: .file(error))
        }
    }

    // MARK: Changing the instance

    /// Reads the newest file, runs `body`, and writes what it set, all under the exclusive lock, so no
    /// other thread, instance or process writes in between: atomic across processes.
    ///
    /// ```swift
    /// try counter.update { $0.count += 1 }      // never loses an increment
    /// counter.count += 1                        // a get, then a set: NOT atomic across processes
    /// ```
    ///
    /// A plain `count += 1` reads the value in memory and writes the sum; another process can write
    /// between the two, and one of the increments is lost. `update` makes the read, the change and the
    /// write one step. Keep `body` short: every other writer of the file waits for it.
    ///
    /// - Throws: What `body` throws (the properties it set before throwing are still written), or a
    ///   `PersistenceError` when the lock was not acquired (30 s) or the file could not be read or written.
    @discardableResult
    public func update<R>(_ body: (Self) throws -> R) throws -> R {
        try _$persistence.update(_$persistedRoot) { _ in try body(self) }
    }

    /// The same as `update(_:)`, for async code: while it waits for another writer's lock it pauses with
    /// `Task.sleep` instead of blocking its thread (Swift's cooperative pool has only as many threads as
    /// cores). In async code the compiler picks this form and asks for `await`.
    ///
    /// ```swift
    /// try await settings.update { $0.launches += 1 }
    /// ```
    ///
    /// - Throws: What `body` throws (the properties it set before throwing are still written), or a
    ///   `PersistenceError` when the lock was not acquired (30 s) or the file could not be read or written.
    @discardableResult
    public func update<R>(isolation: isolated (any Actor)? = #isolation,
                          _ body: (Self) throws -> R) async throws -> R {
        try await _$persistence.update(_$persistedRoot, isolation: isolation) { _ in try body(self) }
    }

    /// Runs `body` and writes every property it set in one write at the end (nested batches write
    /// when the outermost ends).
    ///
    /// ```swift
    /// model.withBatch { model in
    ///     for item in items { model.total += item.price }   // 10,000 sets, one write
    /// }
    /// ```
    ///
    /// Sets made by other threads on this instance while the batch is open join it. A batch is not a
    /// lock: another process can write between the batch's reads and its write (use `update` for
    /// that). A failed final write is reported through `PersistenceErrors`, like a failed set.
    ///
    /// - Throws: What `body` throws, and nothing else; the properties it set before throwing are still
    ///   written when the batch ends.
    public func withBatch<R>(_ body: (Self) throws -> R) rethrows -> R {
        let root = _$persistedRoot
        _$persistence.willRead(root)
        _$persistence.beginDeferring()
        defer { _$persistence.endDeferring(root) }
        return try body(self)
    }

    /// Writes now what is set and not written yet: inside a batch, or after a set whose write failed.
    ///
    /// - Throws: `PersistenceError` when the write failed (the values stay pending).
    public func flush() throws(PersistenceError) {
        try _$persistence.flush(_$persistedRoot)
    }

    /// Writes every persisted property's current value to the file now, durably: DocumentData's explicit
    /// save. Sets already write on their own, so this is only needed to rewrite the whole model (say,
    /// after `delete()`, or to make a file hold every key of the current version). Inside `withBatch`
    /// or `update`, the write happens at the end.
    ///
    /// Like a set, it does not throw: a failure is reported through `PersistenceErrors` and
    /// `persistenceError`, and the values stay pending (`flush()` retries and throws).
    public func save() {
        _$persistence.saveAll(_$persistedRoot)
    }

    /// The last error reported for this instance (also sent to `PersistenceErrors`), if any.
    public var persistenceError: PersistenceError? { _$persistence.lastError }
}
