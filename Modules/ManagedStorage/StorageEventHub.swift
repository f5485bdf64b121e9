import Foundation
import Synchronization

/// Where a manager's errors, changes and resets go: a handler, any number of async streams, and
/// standard error when nothing listens for errors.
final class StorageEventHub: Sendable {
    private struct State {
        var onError: (@Sendable (StorageError) -> Void)?
        var errorStreams: [Int: AsyncStream<StorageError>.Continuation] = [:]
        var changeStreams: [Int: AsyncStream<StorageChanges>.Continuation] = [:]
        var resetStreams: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextID = 0
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
        let (handler, streams) = state.withLock { ($0.onError, Array($0.errorStreams.values)) }
        handler?(error)
        for stream in streams { stream.yield(error) }
        if handler == nil && streams.isEmpty {
            FileHandle.standardError.write(Data("ManagedStorage (\(label)): \(error)\n".utf8))
        }
    }

    func publish(_ changes: StorageChanges) {
        let streams = state.withLock { Array($0.changeStreams.values) }
        for stream in streams { stream.yield(changes) }
    }

    func publishReset() {
        let streams = state.withLock { Array($0.resetStreams.values) }
        for stream in streams { stream.yield(()) }
    }

    func errors() -> AsyncStream<StorageError> {
        let (stream, continuation) = AsyncStream<StorageError>.makeStream(bufferingPolicy: .bufferingNewest(1000))
        let id = state.withLock { state in
            state.nextID += 1
            state.errorStreams[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.errorStreams.removeValue(forKey: id) } }
        return stream
    }

    func changes() -> AsyncStream<StorageChanges> {
        let (stream, continuation) = AsyncStream<StorageChanges>.makeStream(bufferingPolicy: .bufferingNewest(1000))
        let id = state.withLock { state in
            state.nextID += 1
            state.changeStreams[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.changeStreams.removeValue(forKey: id) } }
        return stream
    }

    func resets() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(100))
        let id = state.withLock { state in
            state.nextID += 1
            state.resetStreams[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.resetStreams.removeValue(forKey: id) } }
        return stream
    }

    func finish() {
        let (errors, changes, resets) = state.withLock { state in
            defer { state.errorStreams = [:]; state.changeStreams = [:]; state.resetStreams = [:] }
            return (Array(state.errorStreams.values), Array(state.changeStreams.values), Array(state.resetStreams.values))
        }
        errors.forEach { $0.finish() }
        changes.forEach { $0.finish() }
        resets.forEach { $0.finish() }
    }
}
