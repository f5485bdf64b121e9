import Foundation

extension DataPersistence {
    /// The mutations for async code: the same operations, waiting for another writer's lock with
    /// `Task.sleep`, so a task waiting never holds one of the cooperative pool's threads (the
    /// synchronous forms wait on the calling thread).
    ///
    /// ```swift
    /// try await cards.async.createItem(card)
    /// try await cards.async.transaction { items in items.sort { $0.front < $1.front } }
    /// ```
    ///
    /// They live on a view of their own rather than as `async` overloads: Swift picks an `async`
    /// overload of the same name inside every `async` function, so the tutorial's synchronous calls
    /// (`try persistence.createItem(x)`) would stop compiling there.
    public var async: AsyncOperations { AsyncOperations(persistence: self) }

    /// `DataPersistence`'s mutations for async code; see `DataPersistence.async`.
    ///
    /// ```swift
    /// let operations = cards.async
    /// try await operations.createItem(card)
    /// try await operations.deleteItem(at: 0)
    /// ```
    ///
    /// Each throws what the synchronous method of the same name throws.
    public struct AsyncOperations {
        /// The store the operations act on.
        public let persistence: DataPersistence

        /// Appends `item` to the file; see `createItem(_:)`.
        ///
        /// - Throws: The errors of ``DataPersistence/createItem(_:)``.
        public func createItem(_ item: T) async throws(DataPersistenceError) {
            try await persistence.perform(persistence.creating(item))
        }

        /// Replaces the first item equal to `oldItem`; see `replaceItem(_:with:)`.
        ///
        /// - Throws: The errors of ``DataPersistence/createItem(_:)``.
        @discardableResult
        public func replaceItem(_ oldItem: T, with newItem: T) async throws(DataPersistenceError) -> Bool {
            try await persistence.perform(persistence.replacing(oldItem, with: newItem))
        }

        /// Replaces the item at `index`; see `updateItem(_:at:)`.
        ///
        /// - Throws: The errors of ``DataPersistence/updateItem(_:at:)``: an index out of range or in
        ///   conflict, or a failed read or write.
        public func updateItem(_ item: T, at index: Int) async throws(DataPersistenceError) {
            _ = try await persistence.perform(persistence.replacing(at: index, with: item))
        }

        /// Removes the item at `index`; see `deleteItem(at:)`.
        ///
        /// - Throws: The errors of ``DataPersistence/deleteItem(at:)``.
        @discardableResult
        public func deleteItem(at index: Int) async throws(DataPersistenceError) -> T {
            try await persistence.perform(persistence.deleting(at: index))
        }

        /// Replaces the whole array; see `replaceAllItems(with:)`.
        ///
        /// - Throws: ``DataPersistenceError/outOfDate(path:)``, or the errors of ``DataPersistence/createItem(_:)``.
        public func replaceAllItems(with items: [T]) async throws(DataPersistenceError) {
            try await persistence.perform(persistence.synchronizing(items))
        }

        /// Empties the file; see `deleteAllItems()`.
        ///
        /// - Throws: The errors of ``DataPersistence/deleteAllItems()``.
        public func deleteAllItems() async throws(DataPersistenceError) {
            try await persistence.perform(persistence.removingAll())
        }

        /// Applies many changes with one write; see `transaction(_:)`. `body` runs synchronously
        /// under the lock.
        ///
        /// - Throws: What `body` threw, as it is (nothing is written), or a ``DataPersistenceError`` as
        ///   ``DataPersistence/createItem(_:)``.
        @discardableResult
        public func transaction<R>(_ body: (inout [T]) throws -> R) async throws -> R {
            try await withoutActuallyEscaping(body) { body in try await persistence.perform(persistence.transacting(body)).get() }
        }
    }
}

extension DataPersistence.AsyncOperations where T: Identifiable {
    /// Replaces the item with `item.id`; see `updateItem(_:)`.
    ///
    /// - Throws: The errors of ``DataPersistence/createItem(_:)``.
    @discardableResult
    public func updateItem(_ item: T) async throws(DataPersistenceError) -> Bool {
        try await persistence.perform(persistence.replacing(id: item))
    }

    /// Removes the item with `id`; see `deleteItem(id:)`.
    ///
    /// - Throws: The errors of ``DataPersistence/createItem(_:)``, a failed write being
    ///   ``DataPersistenceError/deletingError(_:)``.
    @discardableResult
    public func deleteItem(id: T.ID) async throws(DataPersistenceError) -> T? {
        try await persistence.perform(persistence.deleting(id: id))
    }
}
