import Observation
import Synchronization

/// A node that holds a value: set it and every node that read it is marked stale.
///
/// `@GraphStored var count = 0` declares one as `$count`; it can also be made directly:
///
/// ```swift
/// let count = Stored(name: "count", wrappedValue: 0)
/// let doubled = Computed { _ in count.wrappedValue * 2 }
/// count.wrappedValue = 21
/// doubled.wrappedValue        // 42, computed now (reading is what computes)
/// ```
///
/// Where the node keeps its value is its second generic parameter, a ``Storage``, as in
/// swift-state-graph 0.25 (whose name for this class, `_Stored`, is kept as a type alias):
///
/// | type | storage | made with |
/// |---|---|---|
/// | ``Stored`` | ``InMemoryStorage``: memory | `Stored(name:wrappedValue:)` |
/// | ``UserDefaultsStored`` | ``UserDefaultsStorage``: a key of a defaults suite, where it survives relaunches and sees other processes' writes | `UserDefaultsStored(key:defaultValue:)`, `init(name:backing:defaultValue:)` |
/// | `StoredNode<Value, S>` | a ``Storage`` of your own | `init(name:storage:file:line:column:)` |
///
/// Code that works with any stored node is generic over the storage:
/// `func reset<S>(_ node: StoredNode<Int, S>) { node.wrappedValue = 0 }`.
///
/// Setting an `Equatable` value equal to the current one changes nothing: no dependent is marked
/// stale, nobody is notified and nothing is written (to a suite, or to a storage of your own). Non-`Equatable` values always count as changed
/// in memory; in a suite, a value whose encoding is what the suite holds (dictionary keys in any
/// order) changes nothing either.
///
/// Thread safety: reads and writes may come from any thread. The node is `Sendable` when its value is.
// @unchecked Sendable: `value`, `didSetHandler` and `outsideChangeHandler` are only touched under `lock` (word-sized values go through the atomic `bits`, versioned by `core.state`); the rest are constants
public final class StoredNode<Value, S: Storage<Value>>: @unchecked Sendable {
    /// The name given at creation (the property's name for `@GraphStored`), for descriptions.
    public var name: String { core.name }

    // The hot paths are inlinable so that a client's `Stored<Int>` is specialized, not generic; the
    // graph's bookkeeping is in `core`, which is not generic.
    //
    // A value that fits in a word (`WordPacking.fits`: `Int`, `Double`, `Bool`...) lives in `bits` and is
    // read without a lock: `core.state` is its version, odd while a write is under way (writes
    // happen under `GraphLock`), so a reader that sees the same even version before and after
    // loading the bits has a value that was current. Any other value lives in `value`, under `lock`.
    @usableFromInline let lock = Mutex<Void>(())
    /// The value, for values that do not fit in a word. Guarded by `lock`.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var value: Value
    /// The value's bits, for values that fit in a word.
    @usableFromInline let bits: Atomic<UInt64>
    /// Set when the node is read outside any evaluation, so a write knows Observation may be watching
    /// (the same protocol as `Computed.lockFreeRead`).
    @usableFromInline let observedSinceNotification = Atomic<Bool>(false)
    /// The version, the computed nodes that read this one and its observers (see `NodeCore`).
    @usableFromInline let core: NodeCore

    @usableFromInline let isEqual: ((Value, Value) -> Bool)?
    @usableFromInline let registrar = ObservationRegistrar()
    @usableFromInline let keyPath: KeyPath<StoredNode<Value, S>, Value> = \StoredNode<Value, S>.wrappedValue
    /// The suite this node is kept in, for backed nodes.
    @usableFromInline let suiteBinding: SuiteBinding<Value>?
    /// The program's own storage this node is kept in, for nodes made with one.
    @usableFromInline let customBinding: CustomStorageBinding<Value, S>?
    /// Whether `onDidSet` gave a handler (checked on every set, so a node without one pays a load).
    @usableFromInline let hasDidSet = Atomic<Bool>(false)
    /// The `onDidSet` handler. Guarded by `lock`.
    nonisolated(unsafe) private var didSetHandler: ((Value, Value) -> Void)?
    /// Called with the values before and after when another writer's change reached a suite-backed
    /// node and changed its value (`GraphUserDefault.onDidSet`). Guarded by `lock`.
    nonisolated(unsafe) private var outsideChangeHandler: ((Value, Value) -> Void)?

    @usableFromInline
    init(name: String, value: Value, isEqual: ((Value, Value) -> Bool)?, binding: SuiteBinding<Value>?,
         custom: CustomStorageBinding<Value, S>? = nil, location: SourceLocation) {
        core = NodeCore(name: name, location: location)
        self.value = value
        bits = Atomic(WordPacking<Value>.fits ? WordPacking<Value>.pack(value) : 0)
        self.isEqual = isEqual
        self.suiteBinding = binding
        self.customBinding = custom
    }

    /// The value. Reading it inside a computed node's rule or a tracking closure records the read.
    @inlinable
    public var wrappedValue: Value {
        get {
            switch EvaluationThread.current(in: core.graph).reader {
            case .evaluation(let reader):
                let (current, version) = versionedValue()
                reader._withUnsafeGuaranteedRef { $0.record(core, version: version) }
                return current
            case .tracking(let recorder):
                // The observer's edge first, so a change after this read is heard.
                recorder._withUnsafeGuaranteedRef { $0.record(core) }
            case .none:
                break
            }
            registrar.access(self, keyPath: keyPath)
            return observedValue()
        }
        set {
            if hasDidSet.load(ordering: .relaxed) {
                setReportingDidSet(newValue)
            } else if let binding = suiteBinding {
                binding.write(newValue, to: self)
            } else if let custom = customBinding {
                custom.write(newValue, to: self)
            } else {
                replace(with: newValue)
            }
        }
    }

    /// A set on a node with an `onDidSet` handler: the set, then the handler with the value before it.
    @usableFromInline
    func setReportingDidSet(_ newValue: Value) {
        let old = currentValue
        if let binding = suiteBinding {
            binding.write(newValue, to: self)
        } else if let custom = customBinding {
            custom.write(newValue, to: self)
        } else {
            replace(with: newValue)
        }
        let handler = lock.withLock { _ in didSetHandler }
        handler?(old, newValue)
    }

    /// The node itself, so `model.$count.projectedValue` and `$count` read alike in generated code.
    public var projectedValue: StoredNode<Value, S> { self }

    /// The value and the version it belongs to (for an evaluation's read).
    @inlinable
    func versionedValue() -> (Value, UInt64) {
        if WordPacking<Value>.fits {
            let seen = core.state.load(ordering: .sequentiallyConsistent)
            if seen & 1 == 0 {
                let loaded = bits.load(ordering: .acquiring)
                if core.state.load(ordering: .sequentiallyConsistent) == seen { return (WordPacking<Value>.unpack(loaded), seen) }
            }
            // A write is under way: it holds the graph's lock until it is done.
            return core.withGraphLock { (WordPacking<Value>.unpack(bits.load(ordering: .relaxed)), core.state.load(ordering: .relaxed)) }
        }
        var version: UInt64 = 0
        let current = lock.withLock { _ in
            version = core.state.load(ordering: .relaxed)
            return value
        }
        return (current, version)
    }

    /// The value for a read from outside any evaluation: arms `observedSinceNotification`, so the
    /// next write tells Observation.
    @inlinable
    func observedValue() -> Value {
        if WordPacking<Value>.fits {
            let seen = core.state.load(ordering: .sequentiallyConsistent)
            if seen & 1 == 0 {
                let loaded = bits.load(ordering: .acquiring)
                // The flag between the two looks at the version (see `Computed.lockFreeRead`).
                if observedSinceNotification.load(ordering: .sequentiallyConsistent),
                   core.state.load(ordering: .sequentiallyConsistent) == seen {
                    return WordPacking<Value>.unpack(loaded)
                }
            }
            if !observedSinceNotification.load(ordering: .relaxed) {
                observedSinceNotification.store(true, ordering: .sequentiallyConsistent)
            }
            return versionedValue().0
        }
        return lock.withLock { _ in
            if !observedSinceNotification.load(ordering: .relaxed) {
                observedSinceNotification.store(true, ordering: .relaxed)
            }
            return value
        }
    }

    /// Sets the value in memory and, if it changed, spreads the change. Returns whether it changed.
    @inlinable @discardableResult
    func replace(with newValue: Value) -> Bool {
        let thread = EvaluationThread.current(in: core.graph)
        var notifications = thread.takeNotifications()
        let changed = store(newValue, notifying: &notifications)
        notifications.deliver(on: thread)
        thread.returnNotifications(&notifications)
        return changed
    }

    /// Calls `handler` after every set of `wrappedValue`, with the value before it and the value set,
    /// on the setting thread, after the change has spread; also for a set that changed nothing (an
    /// equal value). One handler per node: a second call replaces the first. Not called for
    /// ``unsafeModify(_:)``, for the initial value, or for another writer's change to a suite-backed
    /// node (another `DefaultsSuite` instance or process), as swift-state-graph 0.25's `Stored` does;
    /// ``GraphUserDefault/onDidSet(_:)`` sees those too.
    ///
    /// ```swift
    /// model.$count.onDidSet { old, new in print("count: \(old) -> \(new)") }
    /// ```
    ///
    /// Under concurrent sets of the same node, the value "before" is the one read just before this
    /// set, which another thread's set may have replaced in between.
    public func onDidSet(_ handler: @escaping (_ oldValue: Value, _ newValue: Value) -> Void) {
        lock.withLock { _ in didSetHandler = handler }
        hasDidSet.store(true, ordering: .relaxed)
    }

    /// Sets the handler called after another writer's change (another `DefaultsSuite` instance or
    /// process) reached this suite-backed node and changed its value, outside every lock.
    func onOutsideChange(_ handler: @escaping (_ oldValue: Value, _ newValue: Value) -> Void) {
        lock.withLock { _ in outsideChangeHandler = handler }
    }

    /// The handler `onOutsideChange` set, if any.
    var outsideChange: ((Value, Value) -> Void)? { lock.withLock { _ in outsideChangeHandler } }

    /// Changes the value in place, telling nobody: no dependent is marked stale, no observer or
    /// Observation is notified, no `onDidSet` runs (a suite-backed node does write the new value to
    /// its suite). For bulk edits whose change you will announce another way; computed nodes that
    /// cached the old value keep it until something else changes.
    ///
    /// The closure may run again when another thread sets the node meanwhile (its first result is
    /// then discarded), so it should only change the value. It must not use graph nodes.
    ///
    /// - Returns: What `mutation` returned.
    /// - Throws: What `mutation` threw; the value is then unchanged.
    @discardableResult
    public func unsafeModify<Result, Failure: Error>(_ mutation: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        let result: Result
        if WordPacking<Value>.fits {
            while true {
                let (current, version) = versionedValue()
                var copy = current
                let attempt = try mutation(&copy)
                let newBits = WordPacking<Value>.pack(copy)
                // Kept only if no write came in between (the version is odd while one is under way).
                let stored = core.withGraphLock { () -> Bool in
                    guard core.state.load(ordering: .relaxed) == version else { return false }
                    bits.store(newBits, ordering: .releasing)
                    return true
                }
                if stored {
                    result = attempt
                    break
                }
            }
        } else {
            result = try lock.withLock { _ throws(Failure) -> Result in try mutation(&value) }
        }
        suiteBinding?.writeQuietly(currentValue)
        customBinding?.writeQuietly(currentValue)
        return result
    }

    /// swift-state-graph's former name of ``unsafeModify(_:)``.
    ///
    /// - Parameter body: Changes the value in place.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    @available(*, deprecated, renamed: "unsafeModify")
    @discardableResult
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try unsafeModify(body)
    }

    /// How many tracking observers (scopes, subscriptions, sequences) watch this node (for tests).
    package var observerCount: Int { core.withGraphLock { core.observers.ids.count } }

    /// Whether `candidate` is equal to the value (always `false` for a value that is not `Equatable`).
    func holds(_ candidate: Value) -> Bool {
        guard let isEqual else { return false }
        if WordPacking<Value>.fits { return isEqual(versionedValue().0, candidate) }
        return lock.withLock { _ in isEqual(value, candidate) }
    }

    /// The value, read without recording or notifying.
    var currentValue: Value { versionedValue().0 }

    /// Sets the value and marks every dependent stale, so that no reader can see the new value while a
    /// node computed from the old one still looks fresh. Appends what to notify (outside the locks)
    /// to `notifications`; returns `false` when the value is equal to the current one.
    @inlinable
    func store(_ newValue: Value, notifying notifications: inout GraphNotifications) -> Bool {
        if WordPacking<Value>.fits { return storeWord(newValue, notifying: &notifications) }
        var replaced = newValue
        let changed = lock.withLock { _ -> Bool in
            if let isEqual, isEqual(value, replaced) { return false }
            swap(&value, &replaced)
            // Before marking: an evaluation that read the old value and adds its edge to this node
            // after this point sees the new version and runs again (see `ComputedCore.applyEdges`).
            core.state.store(core.state.load(ordering: .relaxed) &+ ComputedCore.generation, ordering: .relaxed)
            if observedSinceNotification.load(ordering: .relaxed) {
                observedSinceNotification.store(false, ordering: .relaxed)
                notifications.append(self)
            }
            core.withGraphLock { core.invalidateDependents(into: &notifications) }
            return true
        }
        // The old value is released here, after the lock: its `deinit` may do anything.
        withExtendedLifetime(replaced) {}
        return changed
    }

    /// `store` for a value that fits in a word: under the graph's lock only, the version odd while
    /// the bits change and the dependents are marked, so readers that see an even version see a
    /// value no node computed from an older one contradicts.
    @inlinable
    func storeWord(_ newValue: Value, notifying notifications: inout GraphNotifications) -> Bool {
        let newBits = WordPacking<Value>.pack(newValue)
        while true {
            let (current, version) = versionedValue()
            // Compared outside the lock (it is the program's code). Equal to the value at that moment:
            // the write takes effect then, changing nothing.
            if let isEqual, isEqual(current, newValue) { return false }
            let stored = core.withGraphLock { () -> Bool in
                // Another write came first: compare again with its value.
                guard core.state.load(ordering: .relaxed) == version else { return false }
                core.state.store(version | 1, ordering: .sequentiallyConsistent)
                bits.store(newBits, ordering: .relaxed)
                // After the version (see `observedValue`).
                if observedSinceNotification.load(ordering: .sequentiallyConsistent),
                   observedSinceNotification.exchange(false, ordering: .sequentiallyConsistent) {
                    notifications.append(self)
                }
                core.invalidateDependents(into: &notifications)
                core.state.store(version &+ ComputedCore.generation, ordering: .releasing)
                return true
            }
            if stored { return true }
        }
    }
}

extension StoredNode where S == InMemoryStorage<Value> {
    /// Creates a node kept in memory.
    ///
    /// - Parameters:
    ///   - name: A name for descriptions.
    ///   - wrappedValue: The initial value.
    ///   - file: The file the node is made in (`#fileID`), for ``NodeInfo/sourceLocation``; leave the default.
    ///   - line: The line the node is made on; leave the default.
    ///   - column: The column the node is made at; leave the default.
    public convenience init(name: String = "stored", wrappedValue: Value, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, value: wrappedValue, isEqual: nil, binding: nil, location: SourceLocation(file: file, line: line, column: column))
    }
}

extension StoredNode where Value: Equatable, S == InMemoryStorage<Value> {
    /// Creates a node kept in memory; setting a value equal to the current one changes nothing.
    ///
    /// - Parameters:
    ///   - name: A name for descriptions.
    ///   - wrappedValue: The initial value.
    ///   - file: The file the node is made in (`#fileID`), for ``NodeInfo/sourceLocation``; leave the default.
    ///   - line: The line the node is made on; leave the default.
    ///   - column: The column the node is made at; leave the default.
    @inlinable // So the comparison is made for the client's type, not through a generic witness.
    public convenience init(name: String = "stored", wrappedValue: Value, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, value: wrappedValue, isEqual: { $0 == $1 }, binding: nil, location: SourceLocation(file: file, line: line, column: column))
    }
}

extension StoredNode where Value: AnyObject, S == InMemoryStorage<Value> {
    /// Creates a node kept in memory holding an object; setting the same instance again changes
    /// nothing (another instance always counts as a change).
    public convenience init(name: String = "stored", wrappedValue: Value, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, value: wrappedValue, isEqual: { $0 === $1 }, binding: nil, location: SourceLocation(file: file, line: line, column: column))
    }
}

extension StoredNode where Value: Equatable & AnyObject, S == InMemoryStorage<Value> {
    /// Creates a node kept in memory holding an `Equatable` object: setting an equal one changes nothing.
    @inlinable
    public convenience init(name: String = "stored", wrappedValue: Value, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, value: wrappedValue, isEqual: { $0 == $1 }, binding: nil, location: SourceLocation(file: file, line: line, column: column))
    }
}

extension StoredNode: Observable {}

extension StoredNode: GraphNotifying {
    @usableFromInline
    func notifyObservers() {
        registrar.willSet(self, keyPath: keyPath)
        registrar.didSet(self, keyPath: keyPath)
    }
}

extension StoredNode: CustomDebugStringConvertible {
    /// The node's name and current value, read without recording.
    public var debugDescription: String {
        return "Stored(\(name): \(currentValue))"
    }
}
