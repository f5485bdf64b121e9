import Foundation

extension Persistence {
    /// Deletes the store's files, when nothing else has them open: Dali's `deleteDatabase()`.
    ///
    /// ```swift
    /// let persistence = try Persistence(databaseName: "scratch")
    /// …
    /// try persistence.deleteDatabase()    // <name>.sqlite and its -wal and -shm files are gone
    /// ```
    ///
    /// It refuses, changing nothing, while another connection has the file open: another
    /// `Persistence` on it (in this process or another), a live query's ``DocumentQuery/observe()``, or
    /// a ``DocumentSequence`` iteration that has not finished. Afterwards this `Persistence` is
    /// closed: every read and write throws ``DocumentStoreError/databaseDeleted(file:)``, and its
    /// identity map is empty. A new `Persistence` on the same file starts an empty store. The folder
    /// is left in place, and flushed (`fsync`) after the files are unlinked: once this returns, the
    /// deletion survives a power cut.
    ///
    /// - Throws: ``DocumentStoreError/databaseInUse(file:)`` when the file is open elsewhere;
    ///   ``DocumentStoreError/misuse(_:)`` inside a transaction of this store;
    ///   ``DocumentStoreError/databaseDeleted(file:)`` when it was deleted already;
    ///   ``DocumentStoreError/deletionNotDurable(file:cause:)`` when the files are gone but their
    ///   folder could not be flushed.
    public func deleteDatabase() throws(DocumentStoreError) {
        guard currentContext() == nil else {
            throw .misuse("deleteDatabase() was called inside a transaction of \(database.path)")
        }
        do {
            try database.deleteFiles()
        } catch .deletionNotDurable(let file, let cause) {
            // The files are gone and the instance closed: only the flush of their folder failed.
            identityMap.removeAll()
            throw .deletionNotDurable(file: file, cause: cause)
        }
        identityMap.removeAll()
    }

    /// Deletes `object`'s document: a new revision that is a deletion (a tombstone the change feed and
    /// replicas see). Loading the identifier then gives `nil`.
    ///
    /// - Throws: ``DocumentStoreError/conflict(_:)`` when the document changed since `object` was
    ///   loaded or saved; ``DocumentStoreError/diskFull(file:)``, ``DocumentStoreError/readOnly(file:)``,
    ///   ``DocumentStoreError/busyTimeout(file:seconds:)`` (another process held the write lock),
    ///   ``DocumentStoreError/corruptDatabase(file:cause:)``, ``DocumentStoreError/sqlite(code:message:sql:)``
    ///   or ``DocumentStoreError/databaseDeleted(file:)`` when the file cannot be written.
    public func delete(_ object: some Persistable) throws {
        if let context = currentContext() {
            try context.put(object, key: IdentifierKey(object.identifier), kind: type(of: object).kind, text: "{}",
                            body: nil, deleted: true)
        } else {
            try transaction { try $0.delete(object) }
        }
    }
}
