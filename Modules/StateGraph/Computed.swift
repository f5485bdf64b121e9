import Observation
import Synchronization

/// A node whose value is computed from other nodes, cached, and computed again only after one of
/// the nodes it read changed.
///
/// `@GraphComputed var total: Int` declares one as `$total`; the model gives it its rule in `init`:
///
/// ```swift
/// self.$total = .init { [$price, $quantity] _ in
///     $price.wrappedValue * $quantity.wrappedValue
/// }
/// ```
///
/// - **Lazy**: the rule runs when the value is read, never when a dependency changes; a change only
///   marks the node stale.
/// - **Dynamic dependencies**: the reads of each evaluation replace the last evaluation's, so a branch
///   that stops reading a node stops depending on it.
/// - **Consistent**: in a diamond (A feeds B and C, both feed D), a change of A makes D compute once,
///   from the new B and the new C. If a dependency changes while the rule runs, the result is thrown
///   away and the rule runs again, so no reader sees a mix of old and new values.
///
/// Thread safety: any thread may read. The rule runs on the reading thread, one evaluation of a node
/// at a time, and should not write to nodes. A rule must not read its own node, directly or through
/// others: the read that closes such a cycle gets the node's last value instead of waiting for
/// itself, and the cycle is reported (`GraphCycleError`, `cycleError`). The node is `Sendable` when
/// its value is.
// @unchecked Sendable: `cached` and `lastCycle` are only touched under `lock` (word-sized values go through the atomic `cachedBits`); `rule` and `isEqual` are `@Sendable`; the rest are constants
public final class Computed<Value>: @unchecked Sendable {
    /// What a rule gets: a way to read without creating dependencies.
    public struct Context {
        @usableFromInline init() {}

        /// The computed environment (`StateGraphGlobal.computedEnvironmentValues`), read at the time
        /// of the read; not a dependency.
        public var environment: Environment { Environment() }

        /// Reads the computed environment by the properties declared on ``ComputedEnvironmentValues``.
        ///
        /// ```swift
        /// let price = Computed { context in context.environment.catalog.prices["tea"] ?? 0 }
        /// ```
        @dynamicMemberLookup
        public struct Environment {
            /// The value of a property declared on ``ComputedEnvironmentValues`` (`context.environment.catalog`),
            /// read under the environment's lock.
            public subscript<T: ComputedEnvironmentKey>(dynamicMember keyPath: KeyPath<ComputedEnvironmentValues, T>) -> T {
                StateGraphGlobal.computedEnvironmentValues.withLock { $0[keyPath: keyPath] }
            }
        }

        /// Runs `body` without recording what it reads: the node does not depend on those reads.
        ///
        /// ```swift
        /// let label = Computed { context in
        ///     let unit = context.withoutTracking { settings.unit }   // a change of unit does not recompute
        ///     return "\(distance.wrappedValue) \(unit)"
        /// }
        /// ```
        ///
        /// - Parameter body: The reads that must not become dependencies.
        /// - Returns: What `body` returns.
        /// - Throws: What `body` throws.
        public func withoutTracking<R>(_ body: () throws -> R) rethrows -> R {
            let thread = EvaluationThread.current
            let saved = thread.reader
            thread.reader = .none
            defer { thread.reader = saved }
            return try body()
        }
    }

    /// The name given at creation, for descriptions.
    public var name: String { core.name }

    // The hot paths are inlinable so that a client's `Computed<Int>` is specialized, not generic; the
    // graph's bookkeeping is in `core`, which is not generic.
    @usableFromInline let rule: @Sendable (inout Context) -> Value
    /// Freshness, edges, the evaluation lock (see `ComputedCore`).
    @usableFromInline let core: ComputedCore
    /// `core.relay`, held here too so that reporting a read to Observation does not retain it.
    @usableFromInline let relay: ObservationRelay
    /// Guards `cached` and `lastCycle`.
    @usableFromInline let lock = Mutex<Void>(())
    /// The cached value as bits, for values that fit in a word (see `WordPacking`): published before
    /// `core.state` turns fresh, so a reader that sees the same fresh state before and after loading
    /// it has a consistent value.
    @usableFromInline let cachedBits = Atomic<UInt64>(0)
    /// Whether `cachedBits` holds a value yet (for a read that closes a cycle).
    @usableFromInline let hasBits = Atomic<Bool>(false)
    /// The cached value, for values that do not fit in a word. Guarded by `lock`.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var cached: Value?
    /// The last cycle a read of this node closed (guarded by `lock`).
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var lastCycle: GraphCycleError?

    /// Whether two values are equal, for the equality cut-off (`nil`: every new value is a change).
    @usableFromInline let isEqual: (@Sendable (Value, Value) -> Bool)?

    @usableFromInline
    init(name: String, isEqual: (@Sendable (Value, Value) -> Bool)?, location: SourceLocation,
         refresher: @escaping ComputedCore.Refresher, rule: @escaping @Sendable (inout Context) -> Value) {
        self.rule = rule
        self.isEqual = isEqual
        core = ComputedCore(name: name, location: location, refresher: refresher)
        relay = core.relay
    }

    /// The same, for a node that brings itself up to date when a dependent checks its reads (made
    /// with a descriptor: see ``init(name:descriptor:file:line:column:)``). The weak reference this
    /// takes moves the node's reference counts to a side table, which makes every retain of it
    /// slower, so plain nodes do without.
    @usableFromInline
    convenience init(name: String, isEqual: (@Sendable (Value, Value) -> Bool)?, location: SourceLocation,
                     refresher: @escaping ComputedCore.Refresher, refreshedByDependents: Bool,
                     rule: @escaping @Sendable (inout Context) -> Value) {
        self.init(name: name, isEqual: isEqual, location: location, refresher: refresher, rule: rule)
        if refreshedByDependents {
            core.owner = self
            core.hasOwner = true
        }
    }

    /// What brings a node of this type up to date for a dependent checking its reads (the equality
    /// cut-off). Made in the inlinable initializers, so it is compiled for the program's own value
    /// type, like a read in the program's code, not run through generic code.
    @inlinable
    static var refresher: ComputedCore.Refresher {
        { node, thread in _ = unsafeDowncast(node, to: Computed<Value>.self).currentValue(on: thread) }
    }

    /// Creates a node computed by `rule`.
    ///
    /// Every new value counts as a change. For the equality cut-off (a new value equal to the last
    /// one changes nothing, and the nodes computed from this one keep their values without running
    /// their rules), make the node with a descriptor: ``init(name:descriptor:file:line:column:)``.
    ///
    /// - Parameters:
    ///   - name: A name for descriptions.
    ///   - rule: Computes the value; every node it reads becomes a dependency.
    ///   - file: The file the node is made in (`#fileID`), for ``NodeInfo/sourceLocation``; leave the default.
    ///   - line: The line the node is made on; leave the default.
    ///   - column: The column the node is made at; leave the default.
    @inlinable
    public convenience init(name: String = "computed", _ rule: @escaping @Sendable (inout Context) -> Value,
                            file: StaticString = #fileID, line: UInt = #line, column: UInt = #column) {
        self.init(name: name, isEqual: nil, location: SourceLocation(file: file, line: line, column: column),
                  refresher: Self.refresher, rule: rule)
    }

    /// A node whose read once closed a dependency cycle holds, through its core, the nodes
    /// of the cycle, which hold its core: it leaves them when it goes, or the cycle's cores would
    /// never be freed. (Any other core stays while nodes that read it remain: see `ComputedCore`.)
    deinit {
        if lastCycle != nil { core.retire() }
    }

    /// How many times the rule has run (for tests and diagnostics).
    package var evaluationCount: Int { core.evaluations.load(ordering: .acquiring) }

    /// The value: the cached one, or computed now if a dependency changed since.
    @inlinable
    public var wrappedValue: Value {
        let thread = EvaluationThread.current(in: core.graph)
        switch thread.reader {
        case .evaluation(let reader):
            let (value, version) = currentValue(on: thread)
            reader._withUnsafeGuaranteedRef { $0.record(computed: core, version: ComputedCore.version(of: version)) }
            return value
        case .tracking(let recorder):
            // The observer's edge first, so a change after this read is heard.
            recorder._withUnsafeGuaranteedRef { $0.record(core) }
        case .none:
            break
        }
        relay.access()
        if let fresh = lockFreeRead() { return fresh }
        if !core.observedSinceNotification.load(ordering: .relaxed) {
            core.observedSinceNotification.store(true, ordering: .sequentiallyConsistent)
        }
        return currentValue(on: thread).value
    }

    /// The node itself.
    public var projectedValue: Computed<Value> { self }

    /// The value, fresh (computed now if stale), and the node's state it belongs to.
    @inlinable
    func currentValue(on thread: EvaluationThread) -> (value: Value, version: UInt64) {
        let seen = core.state.load(ordering: .sequentiallyConsistent)
        if seen & ComputedCore.fresh != 0, let value = freshValue(seen) { return (value, seen) }
        return evaluate(on: thread)
    }

    /// The cached value if the state is still `seen` (a fresh state), else `nil`.
    @inlinable
    func freshValue(_ seen: UInt64) -> Value? {
        if WordPacking<Value>.fits {
            let bits = cachedBits.load(ordering: .acquiring)
            return core.state.load(ordering: .sequentiallyConsistent) == seen ? WordPacking<Value>.unpack(bits) : nil
        }
        // A commit swaps `cached` and turns the state fresh under `lock`.
        return lock.withLock { _ in core.state.load(ordering: .sequentiallyConsistent) == seen ? cached : nil }
    }
}

extension Computed: CustomDebugStringConvertible {
    /// The node's name and its cached value, if it has a fresh one.
    public var debugDescription: String {
        var current: Value?
        let seen = core.state.load(ordering: .sequentiallyConsistent)
        if seen & ComputedCore.fresh != 0 { current = freshValue(seen) }
        return "Computed(\(name): \(current.map { "\($0)" } ?? "stale"))"
    }
}

// MARK: Reading a fresh node without the lock

extension Computed {
    /// The cached value for a read from outside any evaluation, if the node is fresh, its value fits
    /// in a word, and Observation's flag is armed; `nil` sends the reader to the slower path.
    ///
    /// Why it is safe: `cachedBits` changes only under the evaluation lock while the node is stale,
    /// a commit publishes the bits before the fresh state, and every invalidation moves the state to
    /// a new generation; so a reader that sees the same fresh state before and after loading the bits
    /// has the bits of that generation. An outside reader must also find
    /// `observedSinceNotification` set between its two loads of the state (otherwise it sets it and
    /// reads again): the invalidation that ends this generation moves the state first and then clears
    /// the flag, so it sees the flag set and notifies Observation. (Were the flag loaded after the
    /// second look, a reader setting it after an invalidation that found it clear could make this
    /// reader keep a value nobody will tell Observation has changed.)
    @inlinable
    func lockFreeRead() -> Value? {
        guard WordPacking<Value>.fits else { return nil }
        let seen = core.state.load(ordering: .sequentiallyConsistent)
        guard seen & ComputedCore.fresh != 0 else { return nil }
        let bits = cachedBits.load(ordering: .acquiring)
        // The flag before the second look at the state: seen set while the state was still `seen`,
        // it can only have been cleared by an invalidation, which moves the state first.
        guard core.observedSinceNotification.load(ordering: .sequentiallyConsistent),
              core.state.load(ordering: .sequentiallyConsistent) == seen else { return nil }
        return WordPacking<Value>.unpack(bits)
    }
}
