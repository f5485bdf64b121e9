import Foundation

extension DataPersistence where T: Identifiable {
    /// The item with `id` in the newest file, or `nil`.
    public func item(id: T.ID) throws(DataPersistenceError) -> T? {
        try loadItems().first { $0.id == id }
    }

    /// Replaces the item with `item.id` by `item`, wherever it is in the newest file.
    ///
    /// Unlike an index, an id cannot point at the wrong item, so another process's changes never
    /// conflict with this.
    ///
    /// - Returns: `false` (and writes nothing) when no item has that id.
    @discardableResult
    public func update(_ item: T) throws(DataPersistenceError) -> Bool {
        let (found, changes) = try mutate { items, _ throws(DataPersistenceError) -> (old: T, index: Int)? in
            guard let index = items.firstIndex(where: { $0.id == item.id }) else { return nil }
            defer { items[index] = item }
            return (items[index], index)
        }
        publish(changes + (found.map { [.updated(old: $0.old, new: item, index: $0.index)] } ?? []))
        return found != nil
    }

    /// Removes the item with `id` from the newest file and returns it; `nil` (and no write) when none has it.
    @discardableResult
    public func deleteItem(id: T.ID) throws(DataPersistenceError) -> T? {
        let (found, changes) = try mutate(deleting: true) { items, _ throws(DataPersistenceError) -> (old: T, index: Int)? in
            guard let index = items.firstIndex(where: { $0.id == id }) else { return nil }
            return (items.remove(at: index), index)
        }
        publish(changes + (found.map { [.deleted($0.old, index: $0.index)] } ?? []))
        return found?.old
    }
}
