import FileStorageKit
import Foundation

extension DataPersistence {
    /// Appends `item` to the file.
    ///
    /// Reads the newest file under the lock, appends, and writes durably, so items other processes
    /// added meanwhile are kept. Tells the delegate `didSaveItem`.
    ///
    /// - Throws: ``DataPersistenceError/propertyListDecodingError(_:)`` when the file cannot be
    ///   decoded (it is left untouched), `.propertyListEncodingError`, or `.writingError`.
    public func createItem(_ item: T) throws(DataPersistenceError) {
        let (index, changes) = try mutate { items, _ throws(DataPersistenceError) in
            items.append(item)
            return items.count - 1
        }
        publish(changes + [.created(item, index: index)])
    }

    /// Replaces the first item equal to `oldItem` with `newItem`.
    ///
    /// - Returns: `false` (and writes nothing) when no item equals `oldItem` in the newest file.
    @discardableResult
    public func update(_ oldItem: T, with newItem: T) throws(DataPersistenceError) -> Bool {
        let (index, changes) = try mutate { items, _ throws(DataPersistenceError) -> Int? in
            guard let index = items.firstIndex(of: oldItem) else { return nil }
            items[index] = newItem
            return index
        }
        publish(changes + (index.map { [.updated(old: oldItem, new: newItem, index: $0)] } ?? []))
        return index != nil
    }

    /// Replaces the item at `index` of the items as this instance last saw them.
    ///
    /// - Throws: ``DataPersistenceError/indexOutOfRange(index:count:)``, or
    ///   ``DataPersistenceError/indexConflict(index:path:)`` when the file no longer has that item
    ///   at that index (nothing is written), or the errors of `createItem(_:)`.
    public func update(_ item: T, at index: Int) throws(DataPersistenceError) {
        let (old, changes) = try mutate { items, seen throws(DataPersistenceError) in
            let old = try checkedIndex(index, in: items, seen: seen)
            items[index] = item
            return old
        }
        publish(changes + [.updated(old: old, new: item, index: index)])
    }

    /// Removes the item at `index` of the items as this instance last saw them, and returns it.
    ///
    /// Tells the delegate `didDeleteItem`.
    ///
    /// - Throws: As `update(_:at:)`; a failed write is ``DataPersistenceError/deletingError(_:)``.
    @discardableResult
    public func deleteItem(at index: Int) throws(DataPersistenceError) -> T {
        let (old, changes) = try mutate(deleting: true) { items, seen throws(DataPersistenceError) in
            let old = try checkedIndex(index, in: items, seen: seen)
            items.remove(at: index)
            return old
        }
        publish(changes + [.deleted(old, index: index)])
        return old
    }

    /// Replaces the whole array with `items`, for example after reordering.
    ///
    /// Only when the file still holds what this instance last saw (or nothing, if it never loaded):
    /// otherwise replacing it would drop another process's changes, so it throws
    /// ``DataPersistenceError/outOfDate(path:)`` and writes nothing. Use ``transaction(_:)`` to
    /// change the newest items in place.
    public func synchronize(_ items: [T]) throws(DataPersistenceError) {
        let path = url.path
        let (old, changes) = try mutate { current, seen throws(DataPersistenceError) in
            guard current == (seen ?? []) else { throw .outOfDate(path: path) }
            let old = current
            current = items
            return old
        }
        publish(changes + (old == items ? [] : [.replaced(old: old, new: items)]))
    }

    /// Empties the file (it stays, holding an empty array).
    public func removeAll() throws(DataPersistenceError) {
        let (old, changes) = try mutate(deleting: true) { items, _ throws(DataPersistenceError) in
            defer { items.removeAll() }
            return items
        }
        publish(changes + (old.isEmpty ? [] : [.replaced(old: old, new: [])]))
    }

    /// Applies many changes to the newest items with one write.
    ///
    /// `body` gets the file's items under the lock; whatever it leaves in the array is written
    /// once, durably, and only if it differs. If `body` throws, nothing is written. Do not call
    /// this instance from inside `body` (the lock is not re-entrant).
    ///
    /// ```swift
    /// try cards.transaction { items in
    ///     for word in words { items.append(Card(front: word, back: "")) }
    /// }
    /// ```
    @discardableResult
    public func transaction<R>(_ body: (inout [T]) throws -> R) throws -> R {
        var old: [T] = []
        var new: [T] = []
        let (result, changes) = try mutate { items, _ throws(DataPersistenceError) -> Result<R, any Error> in
            old = items
            let result = Result { try body(&items) }
            if case .failure = result { items = old }
            new = items
            return result
        }
        publish(changes + (old == new ? [] : [.replaced(old: old, new: new)]))
        return try result.get()
    }

    // MARK: Internals

    /// The item at `index` as the caller saw it, if the newest file still has it there.
    func checkedIndex(_ index: Int, in items: [T], seen: [T]?) throws(DataPersistenceError) -> T {
        let reference = seen ?? items
        guard reference.indices.contains(index) else {
            throw .indexOutOfRange(index: index, count: reference.count)
        }
        guard items.indices.contains(index), items[index] == reference[index] else {
            throw .indexConflict(index: index, path: url.path)
        }
        return items[index]
    }

    /// Runs `body` on the newest items under the file lock, and writes what it leaves if that differs.
    ///
    /// `body` also gets the items as the caller last saw them (`nil` if this instance never read).
    /// Returns its result and the external change seen on the way (to publish after the lock).
    func mutate<R>(deleting: Bool = false,
                   _ body: (inout [T], _ seen: [T]?) throws(DataPersistenceError) -> R)
        throws(DataPersistenceError) -> (R, [DataPersistenceChange<T>]) {
        try checkFilename()
        let failure: (FileStorageError) -> DataPersistenceError = { deleting ? .deletingError($0) : .writingError($0) }
        do throws(FileStorageError) {
            try AppDirectories.createFolder(url.deletingLastPathComponent())
        } catch {
            throw failure(error)
        }
        let outcome: Result<(R, [DataPersistenceChange<T>]), DataPersistenceError>
        operationLock.lock()
        defer { operationLock.unlock() }
        do {
            outcome = try FileLock.withExclusiveLock(for: url, timeout: lockTimeout) {
                Result { () throws(DataPersistenceError) in
                    let (before, changes) = try currentHoldingOperationLock()
                    var items = before
                    let seen = lock.withLock { state.seen }
                    let result = try body(&items, seen)
                    if items != before {
                        let bytes = try encode(items)
                        do throws(FileStorageError) {
                            try DurableFile.write(bytes, to: url)
                        } catch {
                            throw failure(error)
                        }
                        lock.withLock {
                            state.cache = (bytes, items)
                            state.writes += 1
                        }
                    }
                    lock.withLock { state.seen = items }
                    return (result, changes)
                }
            }
        } catch let error as FileStorageError {
            throw failure(error)
        } catch {
            throw failure(.io(url, operation: "lock", errno: 0))
        }
        return try outcome.get()
    }
}
