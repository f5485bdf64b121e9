import Foundation
import GRDB
import Synchronization

extension Persistence {
    /// Runs `body` in one write transaction: every save and delete in it commits together, or none
    /// does when it throws. Inside another transaction of this store, `body` joins it.
    ///
    /// Inside it, a load or query of an object saved (or loaded) earlier in it returns that same
    /// instance. What it saves, loads and refreshes enters the identity map only when it commits: after
    /// a rollback no instance of a document it wrote is served, and saved objects keep the revisions
    /// they had before it.
    ///
    /// ```swift
    /// try persistence.transaction { persistence in
    ///     try persistence.delete(oldCircle)
    ///     try persistence.save(newCircle)
    /// }
    /// ```
    ///
    /// - Parameter body: The saves and deletes; it runs once, on the caller's thread.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (after rolling back);
    ///   ``DocumentStoreError/diskFull(file:)``, ``DocumentStoreError/readOnly(file:)``,
    ///   ``DocumentStoreError/busyTimeout(file:seconds:)`` (another process held the write lock),
    ///   ``DocumentStoreError/corruptDatabase(file:cause:)``, ``DocumentStoreError/sqlite(code:message:sql:)`` or
    ///   ``DocumentStoreError/databaseDeleted(file:)`` when the file cannot be written.
    @discardableResult
    public func transaction<R>(_ body: (Persistence) throws -> R) throws -> R {
        if currentContext() != nil { return try body(self) }
        var finished: WriteContext?
        let result = try database.write { db in
            let context = WriteContext(persistence: self, db: db)
            finished = context
            return try WriteContext.$current.withValue(context) { try body(self) }
        }
        if let finished {
            finished.publish()
            if finished.didWrite { hub.notify() }
        }
        return result
    }

    // MARK: Transaction internals

    /// The transaction this task is in on this store, if any.
    @inline(__always)
    func currentContext() -> WriteContext? {
        // No context of this store exists, so none is bound to this task: the common case of a load
        // outside any transaction skips the task-local lookup. (A task that has one bound holds it, so
        // the count cannot reach 0 before this task lets go of it; relaxed suffices: the binding was
        // made after the increment, on this task or before the task that inherited it was created.)
        guard writeContexts.load(ordering: .relaxed) > 0 else { return nil }
        guard let context = WriteContext.current, context.persistence === self else { return nil }
        return context
    }

    /// Counts a new ``WriteContext`` of this store (its initializer calls this).
    func writeContextOpened() { writeContexts.wrappingAdd(1, ordering: .relaxed) }

    /// Counts a ``WriteContext`` of this store gone (its deinitializer calls this).
    func writeContextClosed() { writeContexts.wrappingSubtract(1, ordering: .relaxed) }

    /// Runs `body` on the current transaction's connection, or on a reader.
    func reading<R>(_ body: (Database) throws -> R) throws(DocumentStoreError) -> R {
        if let context = currentContext() {
            do { return try body(context.db) } catch { throw DocumentDatabase.storeError(error, file: database.path, busyTimeout: database.configuration.busyTimeout) }
        }
        return try database.read(body)
    }
}
