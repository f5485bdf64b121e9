import Synchronization

/// One subscriber's queue of ``StorageChanges``, bounded without losing a change.
///
/// An `AsyncStream` with a bounded buffer drops events silently when its consumer falls behind (a
/// busy main actor), and live results then miss rows for good. Here, when the queue is full, every
/// change still waiting is folded into one ``StorageChanges/overflowed`` change, which tells the
/// consumer to refetch: that refetch reads the database as it is, which includes every folded
/// commit. So memory stays bounded, and the consumer always learns that it missed something.
///
/// The hub holds mailboxes weakly; the stream made by ``stream()`` holds its mailbox, so a stream
/// nobody keeps any more unsubscribes by going away.
final class ChangeMailbox: Sendable {
    private struct State {
        var queue: [StorageChanges] = []
        /// The position of the next change in `queue` (the array is compacted as it is read).
        var head = 0
        var waiter: CheckedContinuation<StorageChanges?, Never>?
        var finished = false
        var cancelled = false

        var count: Int { queue.count - head }

        mutating func popFirst() -> StorageChanges? {
            guard head < queue.count else { return nil }
            let first = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 256 && head * 2 >= queue.count {
                queue.removeFirst(head)
                head = 0
            }
            return first
        }
    }

    /// The most changes held before they are folded into one.
    let capacity: Int
    private let state = Mutex(State())
    private let onEnd: @Sendable () -> Void

    /// - Parameter onEnd: Called once when the consumer cancels (the hub forgets the mailbox).
    init(capacity: Int, onEnd: @escaping @Sendable () -> Void) {
        self.capacity = max(1, capacity)
        self.onEnd = onEnd
    }

    /// Hands `change` to the waiting consumer, or queues it; when the queue is full, folds it and
    /// everything queued into one overflow change.
    func push(_ change: StorageChanges) {
        let waiter: CheckedContinuation<StorageChanges?, Never>? = state.withLock { state in
            guard !state.finished, !state.cancelled else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            if state.count >= capacity {
                var folded = StorageChanges.overflow(through: change.sequence)
                // A reset among them stays a reset (results report it as one, not as deletions).
                for waiting in state.queue[state.head...] { folded.resetEntities.formUnion(waiting.resetEntities) }
                folded.resetEntities.formUnion(change.resetEntities)
                state.queue = [folded]
                state.head = 0
            } else {
                state.queue.append(change)
            }
            return nil
        }
        waiter?.resume(returning: change)
    }

    /// Ends the stream once the queued changes are read.
    func finish() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next change; `nil` when the stream finished (and was read to its end) or was cancelled.
    private func next() async -> StorageChanges? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<StorageChanges?, Never>) in
                let ready: StorageChanges?? = state.withLock { state in
                    if state.cancelled { return .some(nil) }
                    if let first = state.popFirst() { return .some(first) }
                    if state.finished { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            cancel()
        }
    }

    private func cancel() {
        let (waiter, first) = state.withLock { state in
            defer { state.waiter = nil; state.cancelled = true; state.queue = []; state.head = 0 }
            return (state.waiter, !state.cancelled)
        }
        waiter?.resume(returning: nil)
        if first { onEnd() }
    }

    /// The stream a subscriber iterates; it keeps this mailbox alive.
    func stream() -> AsyncStream<StorageChanges> {
        AsyncStream(unfolding: { [self] in await next() }, onCancel: { [self] in cancel() })
    }
}
