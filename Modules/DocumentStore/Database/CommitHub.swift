import Foundation
import GRDB
import GRDBSQLite
import SQLiteSupport

/// Tells live queries that something committed: at once for this `Persistence`'s own transactions,
/// and, while anyone listens, within one poll interval for other connections' and processes' (the
/// shared `DataVersionPoller`, which reads its baseline when the first subscriber arrives, before that
/// subscriber's first query: a commit between the two is still a change).
// @unchecked Sendable: `subscribers` and `nextID` are only touched under `lock`; `poller` is set once in `init` and only read after
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
