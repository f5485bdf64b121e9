import DocumentStore
import Foundation
import PostgresNIO
import Synchronization

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
    ///
    /// ```swift
    /// let statuses = sync.start()
    /// Task { for await status in statuses { print(status) } }
    /// // ... later, at shutdown:
    /// await sync.stop()
    /// ```
    ///
    /// Nothing is thrown: every failure becomes a ``SyncStatus/offline(retryIn:reason:)`` or
    /// ``SyncStatus/error(_:retryIn:)`` and is retried. The stream keeps the newest 256 statuses when
    /// nobody reads it.
    ///
    /// - Returns: The replicator's statuses, ending with ``SyncStatus/stopped``.
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
    ///
    /// Does nothing when ``start()`` was not called. After it returns, the stream has delivered
    /// ``SyncStatus/stopped`` and ended.
    public func stop() async {
        let task = continuous.withLock { state in
            let task = state.task
            state.task = nil
            return task
        }
        task?.cancel()
        await task?.value
    }

    /// One connection for everything: it listens for other replicas' pushes (`LISTEN`, in place before
    /// the first pull, so no notification sent meanwhile is missed) and runs every synchronization.
    /// When it breaks, the listener wakes the loop at once, and the loop opens a new one and listens again.
    private func loop(_ status: AsyncStream<SyncStatus>.Continuation) async {
        var backoff = configuration.initialBackoff
        var session: ServerSession?
        var replication: Replication?
        var listener: Task<Void, Never>?
        let wake = WakeFlag()
        defer { listener?.cancel() }
        while !Task.isCancelled {
            do {
                if replication == nil {
                    status.yield(.connecting)
                    if let givenServer {
                        replication = try Replication.prepare(self, givenServer)
                    } else {
                        let opened = try await openSession()
                        session = opened
                        listener?.cancel()
                        listener = try await listen(on: opened, wake)
                        replication = try Replication.prepare(self, try await server(on: opened))
                    }
                }
                let report = try await run(replication!, status: { status.yield($0) })
                status.yield(.idle(report))
                backoff = configuration.initialBackoff
                try await waitForWork(wake, replication!, session: session)
            } catch {
                let failure = DocumentSyncError.classify(error, address: configuration.address)
                if failure == .cancelled || Task.isCancelled { break }
                listener?.cancel()
                listener = nil
                await session?.close()
                session = nil
                replication = nil
                status.yield(failure.isTransient ? .offline(retryIn: backoff, reason: failure.description)
                                                 : .error(failure, retryIn: backoff))
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, configuration.maximumBackoff)
            }
        }
        listener?.cancel()
        await session?.close()
    }

    /// Returns when there is something to do: a local commit not pushed yet (including one made while
    /// the last synchronization ran), a notification of another replica's push, a broken connection, or
    /// the maximum interval.
    private func waitForWork(_ wake: WakeFlag, _ replication: Replication, session: ServerSession?) async throws {
        let deadline = ContinuousClock.now + configuration.maximumInterval
        while true {
            if wake.take() || session?.connection.isClosed == true { return }
            if try replication.hasUnpushedChanges() { return }
            guard ContinuousClock.now < deadline else { return }
            try await Task.sleep(for: configuration.pollInterval)
        }
    }

    /// Listens for other replicas' pushes on `session`'s connection; returns once the server has
    /// confirmed the `LISTEN`. The task raises `wake` for each notification from another connection,
    /// and once more when the connection ends.
    private func listen(on session: ServerSession, _ wake: WakeFlag) async throws -> Task<Void, Never> {
        let channel = NotificationChannel.name(schema: configuration.schema)
        let (ready, confirm) = AsyncStream.makeStream(of: (any Error)?.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            do {
                try await session.connection.listen(on: channel) { notifications in
                    confirm.yield(nil)
                    for try await notification in notifications
                    where !NotificationChannel.isOwn(notification.payload, backendPID: session.backendPID) {
                        wake.raise()
                    }
                }
            } catch {
                confirm.yield(error)
            }
            wake.raise()
            confirm.finish()
        }
        // A server that never confirms counts as a broken connection, like a statement without an answer.
        let (limit, address) = (session.statementTimeout, configuration.address)
        let timer = Task {
            try? await Task.sleep(for: limit)
            if !Task.isCancelled {
                confirm.yield(DocumentSyncError.serverUnavailable(address: address.description,
                                                                  cause: "LISTEN had no answer within \(limit)"))
            }
        }
        defer { timer.cancel() }
        for await failure in ready {
            if let failure {
                task.cancel()
                throw failure
            }
            return task
        }
        return task
    }
}

extension Replication {
    /// Whether the store holds commits after this replication's push checkpoint.
    func hasUnpushedChanges() throws -> Bool {
        let pushed = CheckpointHistory(try persistence.checkpoint(pushName)).entries.first?.position ?? 0
        return try persistence.lastSequence() > pushed
    }
}
