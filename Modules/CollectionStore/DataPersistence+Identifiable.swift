import Foundation

extension DataPersistence where T: Identifiable {
    /// The item with `id` in the newest file, or `nil`.
    ///
    /// ```swift
    /// if let card = try cards.item(id: cardID) { print(card.front) }
    /// ```
    ///
    /// - Throws: The errors of ``DataPersistence/loadItems()``.
    public func item(id: T.ID) throws(DataPersistenceError) -> T? {
        try loadItems().first { $0.id == id }
    }

    /// Replaces the item with `item.id` by `item`, wherever it is in the newest file.
    ///
    /// Unlike an index, an id cannot point at the wrong item, so another process's changes never
    /// conflict with this.
    ///
    /// ```swift
    /// card.reviews += 1
    /// try cards.updateItem(card)
    /// ```
    ///
    /// - Returns: `false` (and writes nothing) when no item has that id.
    /// - Throws: The errors of ``DataPersistence/createItem(_:)``.
    @discardableResult
    public func updateItem(_ item: T) throws(DataPersistenceError) -> Bool {
        try perform(replacing(id: item))
    }

    /// The name `updateItem(_:)` had before the tutorial's non-throwing `update` forms came back.
    ///
    /// - Throws: The errors of ``DataPersistence/createItem(_:)``.
    @available(*, deprecated, renamed: "updateItem(_:)")
    @discardableResult
    public func update(_ item: T) throws(DataPersistenceError) -> Bool {
        try updateItem(item)
    }

    /// Removes the item with `id` from the newest file and returns it; `nil` (and no write) when none has it.
    ///
    /// ```swift
    /// try cards.deleteItem(id: card.id)
    /// ```
    ///
    /// - Throws: The errors of ``DataPersistence/createItem(_:)``, a failed write being
    ///   ``DataPersistenceError/deletingError(_:)``.
    @discardableResult
    public func deleteItem(id: T.ID) throws(DataPersistenceError) -> T? {
        try perform(deleting(id: id))
    }

    func replacing(id item: T) -> Mutation<Bool> {
        var found: (old: T, index: Int)?
        return Mutation(apply: { items, _ throws(DataPersistenceError) in
            guard let index = items.firstIndex(where: { $0.id == item.id }) else { return false }
            found = (items[index], index)
            items[index] = item
            return true
        }, changes: { _ in found.map { [.updated(old: $0.old, new: item, index: $0.index)] } ?? [] })
    }

    func deleting(id: T.ID) -> Mutation<T?> {
        var index = 0
        return Mutation(deleting: true, apply: { items, _ throws(DataPersistenceError) in
            guard let found = items.firstIndex(where: { $0.id == id }) else { return nil }
            index = found
            return items.remove(at: found)
        }, changes: { $0.map { [.deleted($0, index: index)] } ?? [] })
    }
}
