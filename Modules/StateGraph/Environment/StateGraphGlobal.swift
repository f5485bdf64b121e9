import Synchronization

/// Process-wide state of the graph (swift-state-graph's namespace of the same name).
///
/// ```swift
/// StateGraphGlobal.computedEnvironmentValues.withLock { $0.catalog = Catalog(prices: ["tea": 3]) }
/// ```
public enum StateGraphGlobal {
    /// The computed environment every rule reads through `context.environment`.
    public static let computedEnvironmentValues = ComputedEnvironmentStorage()
}

/// The lock around the process's ``ComputedEnvironmentValues`` (swift-state-graph declares it as
/// Apple's `OSAllocatedUnfairLock`, which Linux lacks; `withLock` is called the same way).
// @unchecked Sendable: `values` is only touched under `lock`
public final class ComputedEnvironmentStorage: @unchecked Sendable {
    private let lock = Mutex<Void>(())
    nonisolated(unsafe) private var values = ComputedEnvironmentValues()

    init() {}

    /// Runs `body` with the values, under the lock; what it changes, every rule sees from then on.
    ///
    /// ```swift
    /// StateGraphGlobal.computedEnvironmentValues.withLock { $0.catalog = Catalog(prices: ["tea": 3]) }
    /// ```
    ///
    /// Computed nodes that already hold a value keep it: changing the environment invalidates nothing.
    ///
    /// - Parameter body: Reads or changes the values; it must not read graph nodes' environment again
    ///   (the lock is not reentrant).
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withLock<R>(_ body: (inout ComputedEnvironmentValues) throws -> R) rethrows -> R {
        try lock.withLock { _ in try body(&values) }
    }

    /// The same as ``withLock(_:)`` (the spelling `OSAllocatedUnfairLock` offers for non-`Sendable` results).
    ///
    /// - Parameter body: Reads or changes the values.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withLockUnchecked<R>(_ body: (inout ComputedEnvironmentValues) throws -> R) rethrows -> R {
        try withLock(body)
    }
}
