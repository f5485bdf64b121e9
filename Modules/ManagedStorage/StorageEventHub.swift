import Foundation
import Synchronization

/// Where a manager's errors, changes and resets go: a handler, any number of async streams, and
/// standard error when nothing listens for errors.
final class StorageEventHub: Sendable {
    /// The open streams of one kind of event.
    private struct Subscribers<Element: Sendable> {
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
    }

    private struct State {
        var onError: (@Sendable (StorageError) -> Void)?
        var errors = Subscribers<StorageError>()
        var changes = Subscribers<StorageChanges>()
        var resets = Subscribers<Void>()
        var nextID = 0
        /// The sequence number of the last change published.
        var sequence = 0
    }

    private let state: Mutex<State>
    private let label: String

    init(label: String, onError: (@Sendable (StorageError) -> Void)?) {
        self.label = label
        self.state = Mutex(State(onError: onError))
    }

    var onError: (@Sendable (StorageError) -> Void)? {
        get { state.withLock { $0.onError } }
        set { state.withLock { $0.onError = newValue } }
    }

    func report(_ error: StorageError) {
        let (handler, streams) = state.withLock { ($0.onError, Array($0.errors.continuations.values)) }
        handler?(error)
        for stream in streams { stream.yield(error) }
        if handler == nil && streams.isEmpty {
            FileHandle.standardError.write(Data("ManagedStorage (\(label)): \(error)\n".utf8))
        }
    }

    /// Numbers `changes` and hands it to every change stream; under the lock, so every stream gets
    /// the changes of all publishers in one order.
    func publish(_ changes: StorageChanges) {
        var changes = changes
        state.withLock { state in
            state.sequence += 1
            changes.sequence = state.sequence
            for stream in state.changes.continuations.values { stream.yield(changes) }
        }
    }

    /// The sequence number of the last change published.
    var publishedSequence: Int { state.withLock { $0.sequence } }

    func publishReset() {
        for stream in state.withLock({ Array($0.resets.continuations.values) }) { stream.yield(()) }
    }

    func errors() -> AsyncStream<StorageError> { subscribe(\.errors, buffering: 1000) }
    func changes() -> AsyncStream<StorageChanges> { subscribe(\.changes, buffering: 1000) }
    func resets() -> AsyncStream<Void> { subscribe(\.resets, buffering: 100) }

    /// A new stream registered in `subscribers`, removed again when it ends.
    private func subscribe<Element: Sendable>(_ subscribers: WritableKeyPath<State, Subscribers<Element>> & Sendable,
                                              buffering: Int) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(buffering))
        let id = state.withLock { state in
            state.nextID += 1
            state[keyPath: subscribers].continuations[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0[keyPath: subscribers].continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func finish() {
        let all = state.withLock { state in
            defer { state.errors = .init(); state.changes = .init(); state.resets = .init() }
            return (Array(state.errors.continuations.values), Array(state.changes.continuations.values),
                    Array(state.resets.continuations.values))
        }
        all.0.forEach { $0.finish() }
        all.1.forEach { $0.finish() }
        all.2.forEach { $0.finish() }
    }
}
