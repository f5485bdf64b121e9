import FileStorageKit
import Foundation
import Synchronization

/// Told about each item saved or deleted through a `DataPersistence`, after the write succeeded, and
/// about each failure of the tutorial's non-throwing operations.
///
/// Called on the thread that made the change, outside the file lock. Every method has an empty
/// default implementation, so the tutorial's delegate with only `didDeleteItem` conforms.
/// Whole-array changes (`replaceAllItems`, `deleteAllItems`, their tutorial forms `synchronize` and
/// `removeAll`, and `transaction`) and other processes' changes are not reported here;
/// ``DataPersistence/changes()`` reports everything.
///
/// ```swift
/// final class Logger: DataPersistenceDelegate {
///     func didDeleteItem<T>(_ persistence: DataPersistence<T>, item: T) {
///         print("deleted", item)
///     }
/// }
/// let logger = Logger()
/// cards.delegate = logger        // held weakly: keep the logger
/// ```
public protocol DataPersistenceDelegate: AnyObject {
    /// `item` was created, or an item was updated to `item`.
    func didSaveItem<T>(_ persistence: DataPersistence<T>, item: T)
    /// `item` was deleted.
    func didDeleteItem<T>(_ persistence: DataPersistence<T>, item: T)
    /// A non-throwing operation (`update(_:at:)`, `synchronize(_:)`, ...) named `operation` failed.
    func didFail<T>(_ persistence: DataPersistence<T>, operation: String, error: DataPersistenceError)
}

extension DataPersistenceDelegate {
    public func didSaveItem<T>(_ persistence: DataPersistence<T>, item: T) {}
    public func didDeleteItem<T>(_ persistence: DataPersistence<T>, item: T) {}
    public func didFail<T>(_ persistence: DataPersistence<T>, operation: String, error: DataPersistenceError) {}
}

/// One change to a `DataPersistence` file, as ``DataPersistence/changes()`` reports it.
///
/// ```swift
/// for await change in cards.changes() {
///     switch change {
///     case .created(let card, let index): print("new card at \(index): \(card.front)")
///     case .externalChange(let cards): print("another process left \(cards.count) cards")
///     case .failed(let error, let operation): print("\(operation) failed: \(error)")
///     default: break
///     }
/// }
/// ```
public enum DataPersistenceChange<T> {
    /// `createItem` appended the item at `index`.
    case created(T, index: Int)
    /// The item at `index` was replaced.
    case updated(old: T, new: T, index: Int)
    /// The item at `index` was removed.
    case deleted(T, index: Int)
    /// The whole array changed at once: `replaceAllItems` (`synchronize`), `deleteAllItems`
    /// (`removeAll`) or a `transaction`.
    case replaced(old: [T], new: [T])
    /// Another process or instance changed the file; these are its items now.
    case externalChange([T])
    /// A non-throwing operation of the tutorial's (`update(_:at:)`, `removeAll()`, ...) failed;
    /// nothing was written.
    case failed(DataPersistenceError, operation: String)
}

extension DataPersistenceChange: Equatable where T: Equatable {
    /// Equal changes; two failures are equal when they name the same operation and error text.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case let (.created(a, i), .created(b, j)): return a == b && i == j
        case let (.updated(a, b, i), .updated(c, d, j)): return a == c && b == d && i == j
        case let (.deleted(a, i), .deleted(b, j)): return a == b && i == j
        case let (.replaced(a, b), .replaced(c, d)): return a == c && b == d
        case let (.externalChange(a), .externalChange(b)): return a == b
        case let (.failed(a, x), .failed(b, y)): return x == y && a.description == b.description
        default: return false
        }
    }
}
extension DataPersistenceChange: Sendable where T: Sendable {}

/// A change as a `changes()` stream queues it: with the `knownVersion` it brought the items to.
struct VersionedChange<T: Sendable>: Sendable {
    var change: DataPersistenceChange<T>
    var version: UInt64

    var isFailure: Bool {
        if case .failed = change { return true }
        return false
    }
}

/// The `knownVersion` a `changes()` stream folded its queue at: changes it holds are dropped.
private final class FoldMark: Sendable {
    private let version = Mutex<UInt64>(0)
    var through: UInt64 { version.withLock { $0 } }
    func set(_ value: UInt64) { version.withLock { $0 = max($0, value) } }
}

extension DataPersistence {
    /// How many changes a `changes()` stream holds for a consumer that is behind before it folds
    /// them into one ``DataPersistenceChange/externalChange(_:)``.
    public static var changeStreamCapacity: Int { 1024 }

    /// The changes to the file from now on, made by this instance or by any other instance or
    /// process, until the stream is dropped (`observe(_:)` as an async sequence).
    ///
    /// ```swift
    /// for await change in cards.changes() {
    ///     if case .created(let card, _) = change { print("new card:", card.front) }
    /// }
    /// ```
    ///
    /// No change is lost to a consumer that falls behind: when more than
    /// ``changeStreamCapacity`` changes wait, they are folded into one `.externalChange(items)`
    /// holding the items as they are then (each failure folded is kept, the newest of each
    /// operation, before it), and the changes already in those items are not told again. A consumer
    /// that applies every change to a copy of the items therefore always ends with the file's items.
    public func changes() -> AsyncStream<DataPersistenceChange<T>> where T: Sendable {
        let mark = FoldMark()
        let known = UncheckedSendable { [weak self] in self?.knownItems() }
        let mailbox = EventMailbox<VersionedChange<T>>(
            capacity: Self.changeStreamCapacity,
            fold: { waiting in
                guard let (items, version) = known.value() else { return waiting }
                mark.set(version)
                var failures: [VersionedChange<T>] = []
                for entry in waiting {
                    guard case .failed(_, let operation) = entry.change else { continue }
                    failures.removeAll { if case .failed(_, operation) = $0.change { true } else { false } }
                    failures.append(entry)
                }
                return failures + [VersionedChange(change: .externalChange(items), version: version)]
            },
            admit: { $0.isFailure || $0.version > mark.through })
        let subscription = addObserver { [weak mailbox] change, version in
            mailbox?.push(VersionedChange(change: change, version: version))
        }
        mailbox.bind(subscription)
        return mailbox.stream(\.change)
    }

    /// Calls `handler` with each change to the file from now on, until the returned subscription is
    /// cancelled or released: this instance's own changes on the thread that made them, another
    /// writer's as `.externalChange` on FileStorageKit's change thread as soon as inotify reports
    /// it (no task of Swift's cooperative pool is involved: it arrives while the pool is blocked).
    public func observe(_ handler: @escaping @Sendable (DataPersistenceChange<T>) -> Void) -> ChangeSubscription {
        addObserver { change, _ in handler(change) }
    }

    private func addObserver(_ handler: @escaping @Sendable (DataPersistenceChange<T>, UInt64) -> Void) -> ChangeSubscription {
        let id = lock.withLock {
            let id = state.nextObserver
            state.nextObserver += 1
            state.observers[id] = handler
            if state.delivery == nil {
                let refresh = UncheckedSendable { [weak self] in self?.refreshIfIdle() }
                state.delivery = document.onChange { refresh.value() }
            }
            return id
        }
        // Know the file as it is now, so the first change told is a change.
        _ = try? current()
        let remove = UncheckedSendable { [weak self] in
            guard let self else { return }
            lock.withLock { _ = state.observers.removeValue(forKey: id) }
        }
        return ChangeSubscription { remove.value() }
    }

    /// Reads the file and tells observers what another writer changed. When this instance is in the
    /// middle of an operation, the operation looks again when it ends (the change thread never waits
    /// for a file lock).
    func refreshIfIdle() {
        guard operationLock.try() else {
            lock.withLock { state.refreshPending = true }
            return
        }
        let told = (try? currentHoldingOperationLock())?.1
        operationLock.unlock()
        if let told { publish(told) }
    }

    /// Called when an operation ends: looks at the file again if a delivery came meanwhile.
    func lookAgainIfAsked() {
        let asked = lock.withLock {
            defer { state.refreshPending = false }
            return state.refreshPending
        }
        if asked { refreshIfIdle() }
    }

    /// Tells observers and the delegate about `told`, outside every lock.
    func publish(_ told: Told) {
        guard !told.changes.isEmpty else { return }
        let (observers, delegate) = lock.withLock { (Array(state.observers.values), state.delegate) }
        for change in told.changes {
            for observer in observers { observer(change, told.version) }
            switch change {
            case .created(let item, _), .updated(_, let item, _): delegate?.didSaveItem(self, item: item)
            case .deleted(let item, _): delegate?.didDeleteItem(self, item: item)
            case .replaced, .externalChange, .failed: break   // a failure reaches the delegate as didFail
            }
        }
    }
}
