import Synchronization

/// Keeps reacting to the nodes a closure reads: runs it now, and again after every change of what it
/// read, handing each result to `onChange`.
///
/// Dependencies are recorded afresh on every run, like a computed node's. `onChange` runs on the
/// thread that made the change (after the change has spread), or at the end of a `withGraphBatch`.
/// The subscription lasts until `cancel()` or until it is released.
///
/// ```swift
/// let subscription = GraphSubscription {
///     model.displayName
/// } onChange: { name in
///     print("display name:", name)
/// }
/// ```
// @unchecked Sendable: every `nonisolated(unsafe)` field is only touched under `lock` (`firstValue` is set in `init`, before the subscription is shared); `apply` and `onChange` are `@Sendable`
public final class GraphSubscription<Value>: @unchecked Sendable {
    private let apply: @Sendable () -> Value
    private let onChange: @Sendable (Value) -> Void
    private let lock = Mutex<Void>(())
    nonisolated(unsafe) private var dependencies: [NodeCore] = []
    nonisolated(unsafe) private var cancelled = false
    /// Whether a run is under way (on some thread); a change meanwhile makes it go again.
    nonisolated(unsafe) private var runs = RerunState()
    /// What `apply` returned when the subscription was made.
    nonisolated(unsafe) private(set) var firstValue: Value?

    /// Subscribes: runs `apply` once now (without calling `onChange`), then after each change.
    ///
    /// - Parameters:
    ///   - apply: Reads nodes and returns a value.
    ///   - onChange: Receives `apply`'s result after each change.
    public init(_ apply: @escaping @Sendable () -> Value, onChange: @escaping @Sendable (Value) -> Void) {
        self.apply = apply
        self.onChange = onChange
        firstValue = run()
    }

    deinit {
        for dependency in dependencies { dependency.removeObserver(ObjectIdentifier(self)) }
    }

    /// Stops: `onChange` is not called again.
    public func cancel() {
        let list = lock.withLock { _ -> [NodeCore] in
            cancelled = true
            let list = dependencies
            dependencies = []
            return list
        }
        for dependency in list { dependency.removeObserver(ObjectIdentifier(self)) }
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { lock.withLock { _ in cancelled } }

    /// Runs `apply` with recording; returns its value, or `nil` once cancelled.
    private func run() -> Value? {
        let previous = lock.withLock { _ in cancelled ? nil : dependencies }
        guard let previous else { return nil }
        let recorder = GraphRecorder(observer: self, previous: previous)
        let value = recorder.run(apply)
        let reads = recorder.reads
        let stillActive = lock.withLock { _ -> Bool in
            if cancelled { return false }
            dependencies = reads
            return true
        }
        recorder.leaveDropped(by: self, kept: stillActive)
        return stillActive ? value : nil
    }
}

extension GraphSubscription: GraphObserver {
    @usableFromInline
    var isRetainedByDependencies: Bool { false }

    @usableFromInline
    func notifyObservers() {
        // Runs never overlap, and a change during a run (even one `onChange` makes) is not lost: it
        // makes the running call go round again instead of waiting for it (which could deadlock).
        guard lock.withLock({ _ in !cancelled && runs.shouldStart() }) else { return }
        repeat {
            if let value = run() { onChange(value) }
        } while lock.withLock { _ in runs.shouldRepeat(stopped: cancelled) }
    }
}

extension StoredNode where Value: Sendable {
    /// The value now, then each new value, as an async sequence that lasts until the consumer stops.
    ///
    /// Values set in quick succession may be coalesced to the newest (the buffer keeps the last 64).
    public func values() -> AsyncStream<Value> {
        graphValues { self.wrappedValue }
    }
}

extension Computed where Value: Sendable {
    /// The value now, then each new value, as an async sequence that lasts until the consumer stops.
    ///
    /// A change that leaves the computed value as it was is still delivered (the node cannot know
    /// without computing); filter with `removeDuplicates`-style logic if that matters.
    public func values() -> AsyncStream<Value> {
        graphValues { self.wrappedValue }
    }
}

/// An async stream of `read()`'s value now and after every change of what it read.
func graphValues<Value: Sendable>(_ read: @escaping @Sendable () -> Value) -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(64))
    let subscription = GraphSubscription(read) { continuation.yield($0) }
    if let first = subscription.firstValue { continuation.yield(first) }
    continuation.onTermination = { _ in subscription.cancel() }
    return stream
}
