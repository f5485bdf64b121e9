import FileStorageKit
import Foundation
import PlistCodec
import Synchronization

/// How a stored node keeps its value under one key of a suite: encoding, decoding, the last value the
/// suite held, and the lock that keeps the node's memory and the file in the same order.
// @unchecked Sendable: `lastEncoded`, `lastError`, `unwritten` and `removalPending` are only touched under `writeLock`; the rest are constants (`encode`/`decode` keep no state)
@usableFromInline
final class SuiteBinding<Value>: @unchecked Sendable {
    let entry: SuiteEntry
    let key: String
    let defaultValue: Value
    private let encode: (Value) throws -> PlistValue?
    private let decode: (PlistValue) throws -> Value
    /// Held while a write or a reload changes the node and the file, so they happen in one order.
    private let writeLock = Mutex<Void>(())
    // Guarded by `writeLock`.
    /// What the suite held for the key when last read or written (`nil`: no value, the default shows).
    nonisolated(unsafe) private var lastEncoded: PlistValue?
    nonisolated(unsafe) private(set) var lastError: GraphStorageError?
    /// Whether the node holds a value that its set could not write (a full disk, a read-only folder,
    /// a value that does not encode): then a set of that same value is not "no change" but a retry.
    nonisolated(unsafe) private var unwritten = false
    /// Whether a set of `nil` in a batch removed the key from the node (which shows the default since)
    /// but not yet from the file: the batch's flush removes it.
    nonisolated(unsafe) private var removalPending = false

    init(entry: SuiteEntry, key: String, defaultValue: Value, encode: @escaping (Value) throws -> PlistValue?,
         decode: @escaping (PlistValue) throws -> Value) {
        self.entry = entry
        self.key = key
        self.defaultValue = defaultValue
        self.encode = encode
        self.decode = decode
    }

    /// The suite's value for the key, decoded, or the default when there is none (or it does not decode).
    func loadInitialValue() -> Value {
        writeLock.withLock { _ in
            let stored = entry.suite.object(forKey: key)
            lastEncoded = stored
            guard let stored else { return defaultValue }
            do {
                return try decode(stored)
            } catch {
                fail(.decode, error)
                return defaultValue
            }
        }
    }

    /// The last error, read under the lock.
    var storageError: GraphStorageError? { writeLock.withLock { _ in lastError } }

    /// Sets the node to `newValue` and writes it to the suite if its encoding differs from the file's.
    @usableFromInline
    func write<S>(_ newValue: Value, to node: StoredNode<Value, S>) {
        var notifications = GraphNotifications()
        writeLock.withLock { _ in
            // Equal to the node's value (the default included, while the suite has none): no change, no
            // write, unless that value never reached the file.
            if !unwritten, !removalPending, node.holds(newValue) { return }
            let encoded: PlistValue?
            do {
                encoded = try encode(newValue)
            } catch {
                fail(.encode, error)
                unwritten = true
                _ = node.store(newValue, notifying: &notifications)
                return
            }
            // `nil` removes the key, and the node then shows the default, as it does when another
            // writer removes the key (swift-state-graph 0.25 reads the default back too).
            let held = encoded == nil ? defaultValue : newValue
            // A value the node cannot compare whose encoding is what the suite holds: nothing to do.
            if !unwritten, node.isEqual == nil, Self.sameContents(encoded, lastEncoded ?? (try? encode(node.currentValue))) {
                return
            }
            // In a batch, the file is written when the batch ends, with every other key the batch set
            // in the same suite, in one write: another node on the key never sees half a batch.
            if let batch = EvaluationThread.current.batch {
                batch.deferSuiteWrite(DeferredSuiteWrite(binding: self, node: node))
                removalPending = encoded == nil
                _ = node.store(held, notifying: &notifications)
                return
            }
            // The file first: the node's change counts as a write in progress until it has spread
            // (see `GraphClock`), and that should not last as long as a durable write.
            put(encoded)
            _ = node.store(held, notifying: &notifications)
        }
        notifications.deliver(on: EvaluationThread.current)
        notifications.discard()
    }

    /// Writes `value`, which the node already holds (`unsafeModify` changed it in place), to the
    /// suite, telling nobody in this process.
    func writeQuietly(_ value: Value) {
        writeLock.withLock { _ in
            let encoded: PlistValue?
            do {
                encoded = try encode(value)
            } catch {
                fail(.encode, error)
                unwritten = true
                return
            }
            put(encoded)
        }
    }

    /// Runs `body` holding the write lock (a batch's flush holds every lock of its writes at once).
    func withWriteLock<R>(_ body: () -> R) -> R {
        writeLock.withLock { _ in body() }
    }

    /// For a batch's flush, under `writeLock`: the node's value as the suite should hold it now, or
    /// `.none` when the suite holds it already or it does not encode (the failure is reported).
    func encodedForFlush<S>(of node: StoredNode<Value, S>) -> PlistValue?? {
        do {
            let encoded = removalPending ? nil : try encode(node.currentValue)
            removalPending = false
            if !unwritten, Self.sameContents(encoded, lastEncoded) { return .none }
            return .some(encoded)
        } catch {
            fail(.encode, error)
            unwritten = true
            return .none
        }
    }

    /// For a batch's flush, under `writeLock`: the flush wrote `encoded`, or failed with `error`.
    func flushed(_ encoded: PlistValue?, error: (any Error)?) {
        entry.writes.add(1, ordering: .relaxed)
        if let error {
            fail(.write, error)
            unwritten = true
            // A removal that failed is retried as a removal, not as a write of the default shown.
            removalPending = encoded == nil
        } else {
            lastEncoded = encoded
            lastError = nil
            unwritten = false
        }
    }

    /// Writes an encoded value to the suite, and notes whether it got there. Under `writeLock`.
    private func put(_ encoded: PlistValue?) {
        do {
            entry.writes.add(1, ordering: .relaxed)
            try entry.suite.set(encoded, forKey: key)
            lastEncoded = encoded
            lastError = nil
            unwritten = false
            removalPending = false
        } catch {
            fail(.write, error)
            unwritten = true
        }
    }

    /// Brings a value another writer put in the suite into the node, and spreads it if it differs.
    func reload<S>(into node: StoredNode<Value, S>) {
        var notifications = GraphNotifications()
        var told: (() -> Void)?
        writeLock.withLock { _ in
            told = take(entry.suite.object(forKey: key), into: node, notifying: &notifications)
        }
        notifications.deliver(on: EvaluationThread.current)
        notifications.discard()
        told?()
    }

    /// `reload(into:)` from a snapshot of the whole suite, with `writeLock` held by the caller (a
    /// reload of every node of the suite, which holds all their locks while it takes the snapshot).
    func reloadLocked<S>(from snapshot: [String: PlistValue], into node: StoredNode<Value, S>) {
        var notifications = GraphNotifications()
        let told = take(snapshot[key], into: node, notifying: &notifications)
        // Queued by the caller's batch: nothing of the program's runs here.
        notifications.deliver(on: EvaluationThread.current)
        notifications.discard()
        if let told {
            // The outside-change handler runs when the batch ends, after every lock is released.
            if let batch = EvaluationThread.current.batch { batch.runAfterFlush(told) } else { told() }
        }
    }

    /// Under `writeLock`: the node takes what the suite holds for the key, if it is news. Returns
    /// the call of the node's outside-change handler when the value changed and there is one, for the
    /// caller to make once no lock is held.
    private func take<S>(_ stored: PlistValue?, into node: StoredNode<Value, S>,
                      notifying notifications: inout GraphNotifications) -> (() -> Void)? {
        // The suite also reports this node's own writes; the file holds their keys sorted, the
        // encoding in declaration order, and the two are the same value.
        guard !Self.sameContents(stored, lastEncoded) else { return nil }
        lastEncoded = stored
        // The node takes the file's value (or the default), so it holds nothing unwritten any more.
        unwritten = false
        removalPending = false
        let value: Value
        if let stored {
            do {
                value = try decode(stored)
            } catch {
                fail(.decode, error)
                return nil
            }
        } else {
            value = defaultValue
        }
        let old = node.currentValue
        guard node.store(value, notifying: &notifications), let handler = node.outsideChange else { return nil }
        return { handler(old, value) }
    }

    /// Whether two suite values are the same, whatever the order of their dictionaries' keys (`nil`:
    /// no value).
    static func sameContents(_ a: PlistValue?, _ b: PlistValue?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case let (a?, b?): return a.hasSameContents(as: b)
        default: return false
        }
    }

    private func fail(_ operation: GraphStorageError.Operation, _ error: any Error) {
        let failure = GraphStorageError(url: entry.suite.url, key: key, operation: operation, reason: "\(error)",
                                        fileError: error as? FileStorageError)
        lastError = failure
        GraphStorageErrors.report(failure)
    }
}

/// Runs `body` holding the write locks of several suite bindings (a batch's flush, a reload of a
/// whole suite), each once, taken in one order (by identity), so two callers whose sets overlap cannot
/// each hold a lock the other waits for.
func withSuiteWriteLocks(_ locks: [(id: ObjectIdentifier, withLock: (() -> Void) -> Void)], _ body: () -> Void) {
    var seen = Set<ObjectIdentifier>()
    let ordered = locks.filter { seen.insert($0.id).inserted }.sorted { $0.id < $1.id }
    func nest(_ rest: ArraySlice<(id: ObjectIdentifier, withLock: (() -> Void) -> Void)>) {
        guard let first = rest.first else { return body() }
        first.withLock { nest(rest.dropFirst()) }
    }
    nest(ordered[...])
}

/// Lets the binding see through `Optional` without knowing the wrapped type: `nil` removes the key.
protocol OptionalGraphValue {
    var isNone: Bool { get }
}

extension Optional: OptionalGraphValue {
    var isNone: Bool { self == nil }
}

extension StoredNode: SuiteListener {
    var listenerLockID: ObjectIdentifier { ObjectIdentifier(suiteBinding!) }

    func withListenerLock(_ body: () -> Void) {
        suiteBinding!.withWriteLock(body)
    }

    func suiteValueChanged(snapshot: [String: PlistValue]) {
        suiteBinding!.reloadLocked(from: snapshot, into: self)
    }
}

extension StoredNode where S == UserDefaultsStorage<Value> {
    /// Creates a node kept where `backing` says: under a key of a defaults suite, or in memory.
    ///
    /// With `.userDefaults`, the value is read from the suite now (the default when the key has none)
    /// and written to it on every set that changes what the suite holds; `nil` removes the key, so the
    /// default shows again. A value another process writes reaches the node and its dependents within
    /// moments. The suite's folder and the standard suite's name come from `GraphStorageLocation`.
    /// With `.memory`, the node keeps its value in memory, starting from `defaultValue`.
    ///
    /// ```swift
    /// let window = UserDefaultsStored(name: "window", backing: .userDefaults(key: "window"), defaultValue: 800)
    /// ```
    ///
    /// The node's type is ``UserDefaultsStored`` (`StoredNode<Value, UserDefaultsStorage<Value>>`)
    /// whatever `backing` says, so a backing chosen at run time keeps one type.
    ///
    /// - Parameters:
    ///   - name: A name for descriptions.
    ///   - backing: `.memory`, `.userDefaults(key:)` or `.userDefaults(suite:key:)`.
    ///   - defaultValue: The value while the suite holds none for the key.
    ///   - file: The file the node is made in (`#fileID`), for ``NodeInfo/sourceLocation``; leave the default.
    ///   - line: The line the node is made on; leave the default.
    ///   - column: The column the node is made at; leave the default.
    public convenience init(name: String = "stored", backing: GraphStorageBacking, defaultValue: Value, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, backing: backing, defaultValue: defaultValue, isEqual: nil, location: SourceLocation(file: file, line: line, column: column))
    }

    convenience init(name: String, backing: GraphStorageBacking, defaultValue: Value,
                     isEqual: ((Value, Value) -> Bool)?, location: SourceLocation) {
        self.init(name: name, storage: UserDefaultsStorage(backing: backing, defaultValue: defaultValue),
                  isEqual: isEqual, location: location)
    }
}

extension StoredNode where S == UserDefaultsStorage<Value>, Value: Equatable {
    /// Creates a node kept where `backing` says; setting a value equal to the current one changes and
    /// writes nothing.
    ///
    /// - Parameters:
    ///   - name: A name for descriptions.
    ///   - backing: `.memory`, `.userDefaults(key:)` or `.userDefaults(suite:key:)`.
    ///   - defaultValue: The value while the suite holds none for the key.
    ///   - file: The file the node is made in (`#fileID`), for ``NodeInfo/sourceLocation``; leave the default.
    ///   - line: The line the node is made on; leave the default.
    ///   - column: The column the node is made at; leave the default.
    public convenience init(name: String = "stored", backing: GraphStorageBacking, defaultValue: Value, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, backing: backing, defaultValue: defaultValue, isEqual: { $0 == $1 }, location: SourceLocation(file: file, line: line, column: column))
    }
}

extension StoredNode {
    /// The last error writing or reading the suite, or `nil` once a write succeeds again (always
    /// `nil` for a node not kept in a suite).
    public var storageError: GraphStorageError? { suiteBinding?.storageError }

    /// How many writes this node's suite received from nodes of this process (for tests).
    package var suiteWriteCount: Int { suiteBinding?.entry.writes.load(ordering: .relaxed) ?? 0 }

    /// The suite this node is kept in, or `nil` for a node not kept in a suite.
    public var suite: DefaultsSuite? { suiteBinding?.entry.suite }
}
