import FileStorageKit
import Foundation

extension DataPersistence {
    /// Appends `item` to the file.
    ///
    /// Reads the newest file under the lock, appends, and writes durably, so items other processes
    /// added meanwhile are kept. Tells the delegate `didSaveItem`.
    ///
    /// - Throws: ``DataPersistenceError/propertyListDecodingError(_:)`` when the file cannot be
    ///   decoded (it is left untouched), `.readingError` or `.noContentsAtPath` when it cannot be read,
    ///   `.propertyListEncodingError`, `.writingError` (the lock not acquired in time, a full disk,
    ///   permission denied), or `.invalidFilename`. Nothing is written.
    public func createItem(_ item: T) throws(DataPersistenceError) {
        try perform(creating(item))
    }

    /// Replaces the first item equal to `oldItem` with `newItem`.
    ///
    /// The tutorial's `update(_:with:)` does the same and reports a failure as `false` instead.
    ///
    /// ```swift
    /// var edited = card
    /// edited.back = "hola"
    /// try cards.replaceItem(card, with: edited)
    /// ```
    ///
    /// - Parameters:
    ///   - oldItem: The item as it is in the file.
    ///   - newItem: What takes its place, at the same index.
    /// - Returns: `false` (and writes nothing) when no item equals `oldItem` in the newest file.
    /// - Throws: The errors of ``createItem(_:)``.
    @discardableResult
    public func replaceItem(_ oldItem: T, with newItem: T) throws(DataPersistenceError) -> Bool {
        try perform(replacing(oldItem, with: newItem))
    }

    /// Replaces the item at `index` of the items as this instance last saw them.
    ///
    /// The tutorial's `update(_:at:)` does the same and reports a failure as `false` instead.
    ///
    /// ```swift
    /// var items = try cards.loadItems()
    /// items[2].reviews += 1
    /// try cards.updateItem(items[2], at: 2)
    /// ```
    ///
    /// - Parameters:
    ///   - item: The new item.
    ///   - index: Its index in the array ``loadItems()`` (or the last write of this instance) returned.
    /// - Throws: ``DataPersistenceError/indexOutOfRange(index:count:)``, or
    ///   ``DataPersistenceError/indexConflict(index:path:)`` when the file no longer has that item
    ///   at that index (nothing is written), or the errors of `createItem(_:)`.
    public func updateItem(_ item: T, at index: Int) throws(DataPersistenceError) {
        _ = try perform(replacing(at: index, with: item))
    }

    /// Removes the item at `index` of the items as this instance last saw them, and returns it.
    ///
    /// Tells the delegate `didDeleteItem`.
    ///
    /// - Parameter index: The item's index in the array ``loadItems()`` returned.
    /// - Returns: The item removed.
    /// - Throws: As `updateItem(_:at:)`; a failed write is ``DataPersistenceError/deletingError(_:)``.
    @discardableResult
    public func deleteItem(at index: Int) throws(DataPersistenceError) -> T {
        try perform(deleting(at: index))
    }

    /// Replaces the whole array with `items`, for example after reordering.
    ///
    /// Only when the file still holds what this instance last saw (or nothing, if it never loaded):
    /// otherwise replacing it would drop another process's changes, so it throws
    /// ``DataPersistenceError/outOfDate(path:)`` and writes nothing. Use ``transaction(_:)`` to
    /// change the newest items in place. The tutorial's `synchronize(_:)` does the same and reports
    /// a failure without throwing.
    ///
    /// ```swift
    /// var items = try cards.loadItems()
    /// items.sort { $0.front < $1.front }
    /// try cards.replaceAllItems(with: items)
    /// ```
    ///
    /// - Throws: ``DataPersistenceError/outOfDate(path:)`` (nothing is written), or the errors of
    ///   ``createItem(_:)``.
    public func replaceAllItems(with items: [T]) throws(DataPersistenceError) {
        try perform(synchronizing(items))
    }

    /// Empties the file (it stays, holding an empty array). The tutorial's `removeAll()` does the
    /// same and reports a failure without throwing.
    ///
    /// - Throws: The errors of ``createItem(_:)``, a failed write being
    ///   ``DataPersistenceError/deletingError(_:)``; the file keeps its items.
    public func deleteAllItems() throws(DataPersistenceError) {
        try perform(removingAll())
    }

    /// Applies many changes to the newest items with one write.
    ///
    /// `body` gets the file's items under the lock; whatever it leaves in the array is written
    /// once, durably, and only if it differs. If `body` throws, nothing is written and its error is
    /// rethrown. Do not call this instance from inside `body` (the lock is not re-entrant).
    ///
    /// ```swift
    /// try cards.transaction { items in
    ///     for word in words { items.append(Card(front: word, back: "")) }
    /// }
    /// ```
    ///
    /// - Parameter body: Changes the items; what it returns is returned.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, as it is (nothing is written), or a ``DataPersistenceError`` as
    ///   ``createItem(_:)``.
    @discardableResult
    public func transaction<R>(_ body: (inout [T]) throws -> R) throws -> R {
        try withoutActuallyEscaping(body) { body in try perform(transacting(body)).get() }
    }

    // MARK: The mutations, each described once for the synchronous and the async forms

    /// One mutation: what it does to the newest items under the lock, and what it announces after.
    struct Mutation<R> {
        /// Whether a failed write is a `.deletingError` rather than a `.writingError`.
        var deleting = false
        /// Changes the items; also gets the items as the caller last saw them (`nil` if never loaded).
        var apply: (inout [T], _ seen: [T]?) throws(DataPersistenceError) -> R
        /// The changes to tell observers once the write succeeded.
        var changes: (R) -> [DataPersistenceChange<T>]
    }

    func creating(_ item: T) -> Mutation<Void> {
        var index = 0
        return Mutation(apply: { items, _ throws(DataPersistenceError) in
            items.append(item)
            index = items.count - 1
        }, changes: { [.created(item, index: index)] })
    }

    func replacing(_ oldItem: T, with newItem: T) -> Mutation<Bool> {
        var index: Int?
        return Mutation(apply: { items, _ throws(DataPersistenceError) in
            index = items.firstIndex(of: oldItem)
            guard let index else { return false }
            items[index] = newItem
            return true
        }, changes: { _ in index.map { [.updated(old: oldItem, new: newItem, index: $0)] } ?? [] })
    }

    func replacing(at index: Int, with item: T) -> Mutation<T> {
        Mutation(apply: { items, seen throws(DataPersistenceError) in
            let old = try self.checkedIndex(index, in: items, seen: seen)
            items[index] = item
            return old
        }, changes: { [.updated(old: $0, new: item, index: index)] })
    }

    func deleting(at index: Int) -> Mutation<T> {
        Mutation(deleting: true, apply: { items, seen throws(DataPersistenceError) in
            let old = try self.checkedIndex(index, in: items, seen: seen)
            items.remove(at: index)
            return old
        }, changes: { [.deleted($0, index: index)] })
    }

    func synchronizing(_ new: [T]) -> Mutation<Void> {
        let path = url.path
        var old: [T] = []
        return Mutation(apply: { current, seen throws(DataPersistenceError) in
            guard current == (seen ?? []) else { throw .outOfDate(path: path) }
            old = current
            current = new
        }, changes: { old == new ? [] : [.replaced(old: old, new: new)] })
    }

    func removingAll() -> Mutation<Void> {
        var old: [T] = []
        return Mutation(deleting: true, apply: { items, _ throws(DataPersistenceError) in
            old = items
            items.removeAll()
        }, changes: { old.isEmpty ? [] : [.replaced(old: old, new: [])] })
    }

    /// A transaction; its body's own error comes back as the result's failure, after nothing was written.
    func transacting<R>(_ body: @escaping (inout [T]) throws -> R) -> Mutation<Result<R, any Error>> {
        var old: [T] = []
        var new: [T] = []
        return Mutation(apply: { items, _ throws(DataPersistenceError) in
            old = items
            let result = Result { try body(&items) }
            if case .failure = result { items = old }
            new = items
            return result
        }, changes: { _ in old == new ? [] : [.replaced(old: old, new: new)] })
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

    /// Runs `mutation` under the file lock, waiting on this thread, and tells observers.
    func perform<R>(_ mutation: Mutation<R>) throws(DataPersistenceError) -> R {
        try checkFilename()
        operationLock.lock()
        let outcome: Result<(R, Told), DataPersistenceError>
        do {
            outcome = try document.withLock { applyLocked(mutation) }
        } catch {
            outcome = .failure(writeFailure(error, mutation))
        }
        operationLock.unlock()
        return try finish(outcome.get(), mutation)
    }

    func perform<R>(_ mutation: Mutation<R>) async throws(DataPersistenceError) -> R {
        try checkFilename()
        let outcome: Result<(R, Told), DataPersistenceError>
        do {
            // The wait for another process's lock sleeps; the mutation itself runs on one thread.
            outcome = try await document.withLock { () -> Result in
                operationLock.lock()
                defer { operationLock.unlock() }
                return applyLocked(mutation)
            }
        } catch {
            outcome = .failure(writeFailure(error, mutation))
        }
        return try finish(outcome.get(), mutation)
    }

    private func finish<R>(_ outcome: (R, Told), _ mutation: Mutation<R>) -> R {
        // One version for both: a fold at or past it holds the mutation (the external change before
        // it is the whole array, which is safe to tell again).
        publish((outcome.1.changes + mutation.changes(outcome.0), outcome.1.version))
        lookAgainIfAsked()
        return outcome.0
    }

    private func writeFailure<R>(_ error: any Error, _ mutation: Mutation<R>) -> DataPersistenceError {
        if let error = error as? DataPersistenceError { return error }
        let cause = error as? FileStorageError ?? .io(url, operation: "lock", errno: 0)
        if case .encodingFailed = cause { return .propertyListEncodingError(cause) }
        return mutation.deleting ? .deletingError(cause) : .writingError(cause)
    }

    /// Reads the newest file (the caller holds its lock), applies `mutation` and writes the result
    /// through the document, which skips bytes equal to the file's.
    private func applyLocked<R>(_ mutation: Mutation<R>) -> Result<(R, Told), DataPersistenceError> {
        Result { () throws(DataPersistenceError) in
            let before: [T]
            do throws(FileStorageError) {
                before = try document.readFresh()
            } catch {
                throw readFailure(error)
            }
            let changes = noticed(before)
            let seen = lock.withLock { state.seen }
            var result: R?
            var after = before
            do {
                try document.update { items in
                    result = try mutation.apply(&items, seen)
                    after = items
                }
            } catch {
                throw writeFailure(error, mutation)
            }
            let version = lock.withLock {
                state.known = after
                state.seen = after
                state.knownVersion += 1
                return state.knownVersion
            }
            return (result!, (changes.changes, version))
        }
    }
}
