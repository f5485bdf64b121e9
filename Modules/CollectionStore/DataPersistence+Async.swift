import Foundation

/// Mutations for async code. They wait for another writer's lock with `Task.sleep`, so a task
/// waiting never holds one of the cooperative pool's threads (the synchronous forms wait on the
/// calling thread). In an async context the compiler picks these and asks for `await`. Each behaves
/// exactly as its synchronous form.
extension DataPersistence {
    /// Appends `item` to the file; see the synchronous `createItem(_:)`.
    public func createItem(_ item: T) async throws(DataPersistenceError) {
        try await perform(creating(item))
    }

    /// Replaces the first item equal to `oldItem`; see the synchronous `update(_:with:)`.
    @discardableResult
    public func update(_ oldItem: T, with newItem: T) async throws(DataPersistenceError) -> Bool {
        try await perform(replacing(oldItem, with: newItem))
    }

    /// Replaces the item at `index`; see the synchronous `update(_:at:)`.
    public func update(_ item: T, at index: Int) async throws(DataPersistenceError) {
        try await perform(replacing(at: index, with: item))
    }

    /// Removes the item at `index`; see the synchronous `deleteItem(at:)`.
    @discardableResult
    public func deleteItem(at index: Int) async throws(DataPersistenceError) -> T {
        try await perform(deleting(at: index))
    }

    /// Replaces the whole array; see the synchronous `synchronize(_:)`.
    public func synchronize(_ items: [T]) async throws(DataPersistenceError) {
        try await perform(synchronizing(items))
    }

    /// Empties the file; see the synchronous `removeAll()`.
    public func removeAll() async throws(DataPersistenceError) {
        try await perform(removingAll())
    }

    /// Applies many changes with one write; see the synchronous `transaction(_:)`. `body` runs
    /// synchronously under the lock.
    @discardableResult
    public func transaction<R>(_ body: (inout [T]) throws -> R) async throws -> R {
        try await withoutActuallyEscaping(body) { body in try await perform(transacting(body)).get() }
    }
}

extension DataPersistence where T: Identifiable {
    /// Replaces the item with `item.id`; see the synchronous `update(_:)`.
    @discardableResult
    public func update(_ item: T) async throws(DataPersistenceError) -> Bool {
        try await perform(replacing(id: item))
    }

    /// Removes the item with `id`; see the synchronous `deleteItem(id:)`.
    @discardableResult
    public func deleteItem(id: T.ID) async throws(DataPersistenceError) -> T? {
        try await perform(deleting(id: id))
    }
}
