import Synchronization

/// The values of a closure over graph nodes, now and after every change of what it read, as an
/// async sequence (swift-state-graph's counterpart of Observation's `Observations`).
///
/// ```swift
/// for await fullName in GraphTrackings({ "\(model.firstName) \(model.lastName)" }) {
///     print(fullName)
/// }
/// ```
///
/// - The first `next()` runs the closure at once and returns its value ("start with").
/// - Each later `next()` waits for a change of a node the last run read, then runs the closure again
///   and returns the new value. Values are not queued: changes between two `next()` calls make one
///   run, which reads the newest values.
/// - The closure runs on its own isolation: a closure written on the main actor runs there
///   (`untilFinished` inherits the caller's actor as a closure literal does; give `init` a
///   `@MainActor` closure for the same).
/// - A node the closure writes after reading it in the same run does not wake the sequence for that
///   write (no run triggers itself).
/// - Every iterator tracks on its own, so several loops over one sequence each see every change.
/// - The sequence ends when the closure returns `.finish` (``untilFinished(_:)``), throws (the error
///   is rethrown), or the consuming task is cancelled.
public struct GraphTrackings<Element: Sendable, Failure: Error>: AsyncSequence, Sendable {
    public typealias AsyncIterator = Iterator

    /// What an ``untilFinished(_:)`` closure returns: a value, or the end of the sequence.
    ///
    /// ```swift
    /// GraphTrackings<Int, Never>.untilFinished { model.count < 10 ? .next(model.count) : .finish }
    /// ```
    public enum Iteration: Sendable {
        /// Emit this value and keep tracking.
        case next(Element)
        /// End the sequence: the iterator's `next()` returns `nil`.
        case finish
    }

    enum Emit: Sendable {
        case iteration(@isolated(any) @Sendable () throws(Failure) -> Iteration)
        case element(@isolated(any) @Sendable () throws(Failure) -> Element)

        var isolation: (any Actor)? {
            switch self {
            case .iteration(let closure): closure.isolation
            case .element(let closure): closure.isolation
            }
        }
    }

    private let emit: Emit

    /// A sequence of `emit`'s values, one now and one after each change of what it read.
    ///
    /// - Parameter emit: Reads graph nodes and returns the value; it runs on its own isolation. A
    ///   throw ends the sequence, and the loop rethrows it.
    public init(_ emit: @escaping @isolated(any) @Sendable () throws(Failure) -> Element) {
        self.emit = .element(emit)
    }

    private init(emit: Emit) {
        self.emit = emit
    }

    /// A sequence that runs `emit` now and after each change, until it returns `.finish`.
    ///
    /// ```swift
    /// for await count in GraphTrackings<Int, Never>.untilFinished({
    ///     model.count < 10 ? .next(model.count) : .finish
    /// }) { print(count) }
    /// ```
    ///
    /// - Parameter emit: Reads graph nodes and returns the next value or `.finish`; it runs on the
    ///   caller's actor. A throw ends the sequence, and the loop rethrows it.
    /// - Returns: The sequence.
    public static func untilFinished(
        @_inheritActorContext _ emit: @escaping @isolated(any) @Sendable () throws(Failure) -> Iteration
    ) -> GraphTrackings<Element, Failure> {
        GraphTrackings(emit: .iteration(emit))
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(emit: emit)
    }

    /// One consumer's tracking: runs the closure, waits for changes.
    public struct Iterator: AsyncIteratorProtocol {
        private var state: TrackingsState?
        private let emit: Emit
        private var started = false

        init(emit: Emit) {
            self.emit = emit
            self.state = TrackingsState()
        }

        /// The next value: at once for the first call, after a change for the others; `nil` once the
        /// sequence has ended.
        ///
        /// - Parameter actor: The caller's isolation, which the wait runs on.
        /// - Returns: The closure's newest value, or `nil` when the closure returned `.finish` or the
        ///   task was cancelled.
        /// - Throws: What the closure throws (the sequence then ends).
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(Failure) -> Element? {
            guard let state else { return nil }
            if started {
                let id = state.makeWaiterID()
                await withTaskCancellationHandler(operation: {
                    await state.waitForChange(id: id, isolation: actor)
                }, onCancel: {
                    state.cancelWaiter(id: id)
                }, isolation: actor)
            }
            started = true
            if Task.isCancelled { return finish() }
            let result = await Self.track(isolation: emit.isolation, state: state, emit: emit)
            switch result {
            case .success(.next(let element)): return element
            case .success(.finish): return finish()
            case .failure(let error):
                _ = finish()
                throw error
            }
        }

        /// Whether a change since the last run is waiting to be read (for tests).
        package var isChangePending: Bool { state?.isDirty ?? false }

        private mutating func finish() -> Element? {
            state?.stop()
            state = nil
            return nil
        }

        /// Runs the closure on its isolation, recording what it reads.
        private static func track(isolation: isolated (any Actor)?, state: TrackingsState,
                                  emit: Emit) -> Result<Iteration, Failure> {
            state.run {
                switch emit {
                // Passed, not called: this runs on the closure's own isolation (`isolation` is it), and
                // recording needs the call on this thread, without a suspension in between (which an
                // `await` of the closure could bring). Apple's `Observations` does the same; the
                // compiler warns of the conversion it cannot check.
                case .element(let element): Result(catching: element).map { Iteration.next($0) }
                case .iteration(let iteration): Result(catching: iteration)
                }
            }
        }
    }
}

/// One iterator's observer: the nodes its last run read watch it (weakly), and a change wakes the
/// waiting `next()`, or marks the state dirty so the next `next()` does not wait.
// @unchecked Sendable: every `nonisolated(unsafe)` field (waiters, ids, flags, dependencies) is only touched under `lock`
final class TrackingsState: @unchecked Sendable {
    /// The state whose closure runs now in this task (a write it makes wakes nobody).
    @TaskLocal static var running: TrackingsState?

    private enum Waiter {
        case waiting(UnsafeContinuation<Void, Never>)
        case cancelled
    }

    private let lock = Mutex<Void>(())
    nonisolated(unsafe) private var waiters: [Int: Waiter] = [:]
    nonisolated(unsafe) private var nextID = 0
    nonisolated(unsafe) private var dirty = false
    nonisolated(unsafe) private var stopped = false
    nonisolated(unsafe) private var dependencies: [NodeCore] = []

    var isDirty: Bool { lock.withLock { _ in dirty } }

    func makeWaiterID() -> Int {
        lock.withLock { _ in
            defer { nextID &+= 1 }
            return nextID
        }
    }

    /// Runs `body` recording its reads as this state's dependencies.
    func run<T>(_ body: () -> T) -> T {
        let previous = lock.withLock { _ in dependencies }
        let recorder = GraphRecorder(observer: self, previous: previous)
        let result = Self.$running.withValue(self) { recorder.run(body) }
        let reads = recorder.reads
        let kept = lock.withLock { _ -> Bool in
            if stopped { return false }
            dependencies = reads
            return true
        }
        recorder.leaveDropped(by: self, kept: kept)
        return result
    }

    /// Waits until a change since the last run, returning at once if one came already.
    func waitForChange(id: Int, isolation: isolated (any Actor)?) async {
        await withUnsafeContinuation(isolation: isolation) { (continuation: UnsafeContinuation<Void, Never>) in
            let resumeNow = lock.withLock { _ -> Bool in
                if case .cancelled? = waiters[id] {
                    waiters[id] = nil
                    return true
                }
                if dirty || stopped {
                    dirty = false
                    return true
                }
                waiters[id] = .waiting(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// The waiting task was cancelled: wakes it (it then sees the cancellation).
    func cancelWaiter(id: Int) {
        let continuation = lock.withLock { _ -> UnsafeContinuation<Void, Never>? in
            guard case .waiting(let continuation)? = waiters.removeValue(forKey: id) else {
                // Cancelled before it waited: the wait returns at once.
                waiters[id] = .cancelled
                return nil
            }
            return continuation
        }
        continuation?.resume()
    }

    /// The sequence ended: leaves the nodes it watched.
    func stop() {
        let taken = lock.withLock { _ -> [NodeCore] in
            stopped = true
            defer { dependencies = [] }
            return dependencies
        }
        for dependency in taken { dependency.removeObserver(ObjectIdentifier(self)) }
    }

    deinit {
        for dependency in dependencies { dependency.removeObserver(ObjectIdentifier(self)) }
    }
}

extension TrackingsState: GraphObserver {
    // The iterator keeps it; the nodes hold it weakly.
    @usableFromInline
    var isRetainedByDependencies: Bool { false }

    @usableFromInline
    func notifyObservers() {
        if Self.running === self { return }
        let woken = lock.withLock { _ -> [UnsafeContinuation<Void, Never>] in
            var woken: [UnsafeContinuation<Void, Never>] = []
            for (id, waiter) in waiters {
                if case .waiting(let continuation) = waiter {
                    woken.append(continuation)
                    waiters[id] = nil
                }
            }
            if woken.isEmpty { dirty = true }
            return woken
        }
        for continuation in woken { continuation.resume() }
    }
}
