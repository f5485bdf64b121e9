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
    /// is left in place.
    ///
    /// - Throws: ``DocumentStoreError/databaseInUse(file:)`` when the file is open elsewhere;
    ///   ``DocumentStoreError/misuse(_:)`` inside a transaction of this store;
    ///   ``DocumentStoreError/databaseDeleted(file:)`` when it was deleted already.
    public func deleteDatabase() throws(DocumentStoreError) {
        guard currentContext() == nil else {
            throw .misuse("deleteDatabase() was called inside a transaction of \(database.path)")
        }
        try database.deleteFiles()
        identityMap.removeAll()
    }
}
