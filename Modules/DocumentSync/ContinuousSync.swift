import DocumentStore
import Foundation
import PostgresNIO
import Synchronization

/// What a continuous replicator is doing, as ``DocumentSync/start()`` reports it.
public enum SyncStatus: Sendable, Equatable, CustomStringConvertible {
    /// Opening a connection to the server.
    case connecting
    /// Sending local changes.
    case pushing
    /// Receiving the server's changes.
    case pulling
    /// Up to date as of the report's synchronization; waiting for changes.
    case idle(DocumentSync.Report)
    /// The server cannot be reached; the next attempt is after `retryIn`.
    case offline(retryIn: Duration, reason: String)
    /// A synchronization failed for a reason waiting alone may not fix; it is tried again after `retryIn`.
    case error(DocumentSyncError, retryIn: Duration)
    /// ``DocumentSync/stop()`` was called (the stream ends after this).
    case stopped

    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .pushing: "pushing"
        case .pulling: "pulling"
        case .idle(let report): "idle (\(report))"
        case .offline(let retry, let reason): "offline, retrying in \(retry): \(reason)"
        case .error(let error, let retry): "error, retrying in \(retry): \(error)"
        case .stopped: "stopped"
        }
    }
}

struct ContinuousState: ~Copyable {
    var task: Task<Void, Never>?
}

/// A flag the notification listener raises and the waiting loop lowers.
final class WakeFlag: Sendable {
    private let raised = Atomic<Bool>(false)
    func raise() { raised.store(true, ordering: .releasing) }
    func take() -> Bool { raised.exchange(false, ordering: .acquiringAndReleasing) }
}

extension DocumentSync {
    /// Synchronizes continuously until ``stop()``: after every local commit (polled every
    /// ``Configuration/pollInterval``), on every server notification (`LISTEN`), and at least every
    /// ``Configuration/maximumInterval``. Failures are retried with exponential backoff. The stream
    /// reports each step; a second call replaces the first replicator.
    public func start() -> AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStatus.self, bufferingPolicy: .bufferingNewest(256))
        let task = Task { [self] in
            await loop(continuation)
            continuation.yield(.stopped)
            continuation.finish()
        }
        let previous = continuous.withLock { state in
            let previous = state.task
            state.task = task
            return previous
        }
        previous?.cancel()
        return stream
    }

    /// Stops a continuous replicator and waits until it has (a batch in flight is rolled back or committed whole).
    public func stop() async {
        let task = continuous.withLock { state in
            let task = state.task
            state.task = nil
            return task
        }
        task?.cancel()
        await task?.value
    }

    private func loop(_ status: AsyncStream<SyncStatus>.Continuation) async {
        var backoff = configuration.initialBackoff
        var session: ServerSession?
        var listener: Task<Void, Never>?
        let wake = WakeFlag()
        defer { listener?.cancel() }
        while !Task.isCancelled {
            do {
                if session == nil {
                    status.yield(.connecting)
                    session = try await ServerSession.open(configuration.address, connectTimeout: configuration.connectTimeout,
                                                           statementTimeout: configuration.statementTimeout)
                    listener?.cancel()
                    listener = listen(wake)
                }
                let report = try await run(on: session!, status: { status.yield($0) })
                status.yield(.idle(report))
                backoff = configuration.initialBackoff
                try await waitForWork(wake)
            } catch {
                let failure = DocumentSyncError.classify(error, address: configuration.address)
                if failure == .cancelled || Task.isCancelled { break }
                await session?.close()
                session = nil
                status.yield(failure.isTransient ? .offline(retryIn: backoff, reason: failure.description)
                                                 : .error(failure, retryIn: backoff))
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, configuration.maximumBackoff)
            }
        }
        await session?.close()
    }

    /// Returns when there is something to do: a notification, a local commit, or the maximum interval.
    private func waitForWork(_ wake: WakeFlag) async throws {
        let start = try persistence.lastSequence()
        let deadline = ContinuousClock.now + configuration.maximumInterval
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: configuration.pollInterval)
            if wake.take() { return }
            if try persistence.lastSequence() != start { return }
        }
    }

    /// Listens for other replicas' pushes on a connection of its own; ends quietly when it fails
    /// (the loop's maximum interval still brings their changes).
    private func listen(_ wake: WakeFlag) -> Task<Void, Never> {
        let address = configuration.address
        let timeout = configuration.connectTimeout
        let channel = NotificationChannel.name(schema: configuration.schema)
        return Task {
            guard let session = try? await ServerSession.open(address, connectTimeout: timeout) else { return }
            _ = try? await session.connection.listen(on: channel) { notifications in
                for try await _ in notifications { wake.raise() }
            }
            await session.close()
        }
    }
}
