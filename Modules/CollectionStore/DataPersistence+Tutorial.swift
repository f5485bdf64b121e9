import Foundation

/// What an item of a `DataPersistence` must be: the tutorial's name, so `struct Deck: Writeable` compiles.
public typealias Writeable = Codable & Equatable

/// The tutorial's shapes, so its calls compile unchanged, in synchronous and in `async` code:
/// `update(_:with:)` and `update(_:at:)` return `Bool`, `hasItemBeenSaved(_:)` returns `Bool`,
/// `synchronize(_:)` and `removeAll()` return nothing, and none of them throws.
///
/// Failure is never silent: the `Bool` is `false` (or the call does nothing), and the error goes to
/// ``DataPersistence/onError`` (one line on standard error when it is not set), to the delegate's
/// `didFail`, and to ``DataPersistence/changes()`` as ``DataPersistenceChange/failed(_:operation:)``.
/// New code calls the throwing forms these wrap: `replaceItem(_:with:)`, `updateItem(_:at:)`,
/// `containsItem(_:)`, `replaceAllItems(with:)`, `deleteAllItems()`.
extension DataPersistence {
    /// Replaces the first item equal to `oldItem` with `newItem`; `false` when there is none, or
    /// when it failed (reported as the type describes). Throwing form: `replaceItem(_:with:)`.
    @discardableResult
    public func update(_ oldItem: T, with newItem: T) -> Bool {
        reportingFailure("update(_:with:)") { () throws(DataPersistenceError) in try replaceItem(oldItem, with: newItem) } ?? false
    }

    /// Replaces the item at `index`; `false` when it failed (an index out of range or changed by
    /// another process, a damaged file, a failed write), reported as the type describes.
    /// Throwing form: `updateItem(_:at:)`.
    @discardableResult
    public func update(_ item: T, at index: Int) -> Bool {
        reportingFailure("update(_:at:)") { () throws(DataPersistenceError) in try updateItem(item, at: index); return true } ?? false
    }

    /// Whether an item equal to `item` is in the file; `false` when the file cannot be read
    /// (reported as the type describes). Throwing form: `containsItem(_:)`.
    public func hasItemBeenSaved(_ item: T) -> Bool {
        reportingFailure("hasItemBeenSaved(_:)") { () throws(DataPersistenceError) in try containsItem(item) } ?? false
    }

    /// Replaces the whole array with `items` (for reordering), unless another process changed the
    /// file since it was loaded (reported as the type describes). Throwing form: `replaceAllItems(with:)`.
    public func synchronize(_ items: [T]) {
        _ = reportingFailure("synchronize(_:)") { () throws(DataPersistenceError) in try replaceAllItems(with: items) }
    }

    /// Empties the file; a failure is reported as the type describes. Throwing form: `deleteAllItems()`.
    public func removeAll() {
        _ = reportingFailure("removeAll()") { () throws(DataPersistenceError) in try deleteAllItems() }
    }

    /// Called with every failure of the non-throwing tutorial forms, on the calling thread. When it is
    /// `nil`, each failure is one line on standard error.
    public var onError: ((DataPersistenceError) -> Void)? {
        get { lock.withLock { state.onError } }
        set { lock.withLock { state.onError = newValue } }
    }

    /// Runs `body`; on failure tells `onError` (or standard error), the delegate and the change
    /// stream, and returns `nil`.
    func reportingFailure<R>(_ operation: String, _ body: () throws(DataPersistenceError) -> R) -> R? {
        do {
            return try body()
        } catch {
            let (handler, delegate) = lock.withLock { (state.onError, state.delegate) }
            delegate?.didFail(self, operation: operation, error: error)
            publish(([.failed(error, operation: operation)], lock.withLock { state.knownVersion }))
            if let handler {
                handler(error)
            } else {
                let text = "DataPersistence<\(T.self)>.\(operation) failed: \(error)"
                FileHandle.standardError.write(Data((text.split(whereSeparator: \.isNewline).joined(separator: " ") + "\n").utf8))
            }
            return nil
        }
    }
}
