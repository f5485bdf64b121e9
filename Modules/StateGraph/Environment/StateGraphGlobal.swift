import Synchronization

/// Process-wide state of the graph (swift-state-graph's namespace of the same name).
public enum StateGraphGlobal {
    /// The computed environment every rule reads through `context.environment`.
    public static let computedEnvironmentValues = ComputedEnvironmentStorage()
}

/// The lock around the process's ``ComputedEnvironmentValues`` (swift-state-graph declares it as
/// Apple's `OSAllocatedUnfairLock`, which Linux lacks; `withLock` is called the same way).
public final class ComputedEnvironmentStorage: @unchecked Sendable {
    private let lock = Mutex<Void>(())
    nonisolated(unsafe) private var values = ComputedEnvironmentValues()

    init() {}

    /// Runs `body` with the values, under the lock; what it changes, every rule sees from then on.
    public func withLock<R>(_ body: (inout ComputedEnvironmentValues) throws -> R) rethrows -> R {
        try lock.withLock { _ in try body(&values) }
    }

    /// The same as ``withLock(_:)`` (the spelling `OSAllocatedUnfairLock` offers for non-`Sendable` results).
    public func withLockUnchecked<R>(_ body: (inout ComputedEnvironmentValues) throws -> R) rethrows -> R {
        try withLock(body)
    }
}
