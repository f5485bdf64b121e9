import Foundation
import GRDB
import GRDBSQLite
import SQLiteSupport

/// Tells live queries that something committed: at once for this `Persistence`'s own transactions,
/// and, while anyone listens, within one poll interval for other connections' and processes' (the
/// shared `DataVersionPoller`, which reads its baseline when the first subscriber arrives, before that
/// subscriber's first query: a commit between the two is still a change).
final class CommitHub: @unchecked Sendable {
    private let lock = Lock()
    private var subscribers: [Int: AsyncStream<Void>.Continuation] = [:]
    private var nextID = 0
    private var poller: DataVersionPoller!

    init(path: String, interval: Duration) {
        poller = DataVersionPoller(path: path, interval: interval, label: "DocumentStore") { [weak self] in self?.notify() }
    }

    /// A stream of "something committed" ticks, coalesced, starting with one at once.
    func subscribe() -> (id: Int, ticks: AsyncStream<Void>) {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        continuation.yield()
        let id = lock.withLock {
            nextID += 1
            subscribers[nextID] = continuation
            return nextID
        }
        reconcilePolling()
        return (id, stream)
    }

    func unsubscribe(_ id: Int) {
        lock.withLock {
            subscribers[id]?.finish()
            subscribers[id] = nil
        }
        reconcilePolling()
    }

    /// Serializes starting and stopping the poller; never held by `notify` (which the poller calls on
    /// its own queue, while `start` and `stop` wait for that queue).
    private let lifecycle = Lock()

    /// Polls exactly while someone listens, whatever order concurrent subscribes and unsubscribes ran in.
    private func reconcilePolling() {
        lifecycle.withLock {
            let listening = lock.withLock { !subscribers.isEmpty }
            if listening && !poller.isStarted { poller.start() }
            if !listening && poller.isStarted { poller.stop() }
        }
    }

    func notify() {
        let continuations = lock.withLock { Array(subscribers.values) }
        for continuation in continuations { continuation.yield() }
    }

    /// Looks for other processes' commits now, on the caller's thread (tests: no waiting for a poll).
    func checkNow() { poller.checkNow() }
}

extension DocumentQuery {
    /// The query's results now, and again each time a commit (from this process or another) changes
    /// them: which documents match, in which order, at which revisions. Commits that leave the results
    /// as they were emit nothing.
    ///
    /// ```swift
    /// for try await circles in persistence.query(Circle.self).where(Field("radius") > 1).observe() {
    ///     print(circles.map(\.identifier))
    /// }
    /// ```
    ///
    /// The stream ends with an error when the query cannot run; it stops when its consumer stops.
    public func observe() -> AsyncThrowingStream<[DocumentSnapshot], Error> {
        let (stream, continuation) = AsyncThrowingStream<[DocumentSnapshot], Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let persistence = persistence
        let compiled: QuerySQL.Compiled
        do {
            compiled = try compile(columns: "id, kind, revision, body", ordered: true)
        } catch {
            continuation.finish(throwing: error)
            return stream
        }
        let task = Task.detached {
            let hub = persistence.hub
            let (id, ticks) = hub.subscribe()
            defer { hub.unsubscribe(id) }
            var last: [DocumentSnapshot]?
            for await _ in ticks {
                do {
                    let results = try persistence.snapshots(compiled)
                    if results != last {
                        last = results
                        continuation.yield(results)
                    }
                } catch {
                    continuation.finish(throwing: error)
                    return
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// One entry of the change feed: a revision written, in commit order.
public struct DocumentChange: Sendable, Equatable, CustomStringConvertible {
    /// The feed position (increasing; each written revision has its own).
    public let sequence: Int64
    /// The document's identifier.
    public let identifier: String
    /// The revision written.
    public let revision: String
    /// Whether the revision is a deletion.
    public let deleted: Bool

    public var description: String { "\(sequence) \(identifier) \(revision)\(deleted ? " deleted" : "")" }
}

extension Persistence {
    /// The revisions written after `sequence`, in commit order: every save and delete, from every
    /// process, each once. Pass the last entry's sequence to continue.
    public func changes(since sequence: Int64 = 0, limit: Int = 1000) throws(DocumentStoreError) -> [DocumentChange] {
        try reading { db in
            let select = try SQLiteStatement("""
                SELECT c.sequence, d.id, c.revision, c.deleted FROM changes AS c JOIN documents AS d ON d.number = c.document
                WHERE c.sequence > ? ORDER BY c.sequence LIMIT ?
                """, on: db)
            defer { select.reset() }
            select.bind(sequence, at: 1)
            select.bind(Int64(max(0, limit)), at: 2)
            var changes: [DocumentChange] = []
            while try select.step() {
                changes.append(DocumentChange(sequence: select.int64(at: 0), identifier: select.text(at: 1) ?? "",
                                              revision: select.text(at: 2) ?? "", deleted: select.int64(at: 3) != 0))
            }
            return changes
        }
    }

    /// The sequence of the last change written (0 for an empty store).
    public func lastSequence() throws(DocumentStoreError) -> Int64 {
        try reading { db in
            let select = try SQLiteStatement("SELECT coalesce(max(sequence), 0) FROM changes", on: db)
            defer { select.reset() }
            return try select.step() ? select.int64(at: 0) : 0
        }
    }
}
