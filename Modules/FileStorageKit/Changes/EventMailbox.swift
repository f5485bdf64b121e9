import Synchronization

/// One subscriber's queue of events, bounded without losing what they say.
///
/// An `AsyncStream` with a bounded buffer drops events silently when its consumer falls behind, and
/// a consumer that keeps state from them (a copy of a collection, the keys it must read again) then
/// diverges for good. Here, when the queue is full and another event comes, `fold` replaces them all
/// with fewer events that say the same or more (the whole collection as it is now, each changed key
/// once): memory stays bounded and the consumer still learns everything it must.
///
/// The limit starts at `capacity`; after a fold it is twice what the fold left (never less than
/// `capacity`), so a fold that cannot shrink the queue much (more distinct keys waiting than
/// `capacity`) does not run again on the next push: each push costs O(1) amortized plus the fold's
/// own cost per event, and the queue holds at most the larger of `capacity` and twice what a fold
/// keeps.
///
/// `fold` and `admit` run on the producer's thread while the mailbox is locked: they must be quick
/// and must not call the mailbox. ``stream(_:)`` makes the subscriber's stream, which is the one
/// strong owner of the mailbox: the producer holds it weakly, so a consumer that stops iterating (or
/// never starts) lets it go, and the subscription handed to ``bind(_:)`` is then released, which
/// cancels it.
package final class EventMailbox<Element: Sendable>: Sendable {
    private struct State {
        var queue: [Element] = []
        /// The position of the next element in `queue` (the array is compacted as it is read).
        var head = 0
        /// How many waiting events make the next push fold them.
        var limit: Int
        var waiter: CheckedContinuation<Element?, Never>?
        var finished = false
        var cancelled = false
        /// What feeds this mailbox; cancelled with it, released with it.
        var subscription: ChangeSubscription?

        var count: Int { queue.count - head }

        mutating func popFirst() -> Element? {
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

    /// The most events held before the first fold (the next push folds them).
    package let capacity: Int
    private let fold: @Sendable ([Element]) -> [Element]
    private let admit: (@Sendable (Element) -> Bool)?
    private let state: Mutex<State>

    /// - Parameters:
    ///   - capacity: How many events wait before the next push folds them.
    ///   - fold: Given every waiting event, oldest first (the one being pushed last), the fewer
    ///     events, in order, that stand for them all.
    ///   - admit: Whether a pushed event is still news (`false`: a fold already said it, and it is
    ///     dropped); every event is, without it.
    package init(capacity: Int, fold: @escaping @Sendable ([Element]) -> [Element],
                 admit: (@Sendable (Element) -> Bool)? = nil) {
        self.capacity = max(1, capacity)
        self.fold = fold
        self.admit = admit
        state = Mutex(State(limit: max(1, capacity)))
    }

    /// Keeps `subscription` (what pushes into this mailbox) until the consumer cancels, the stream
    /// ends or the mailbox is released; it is cancelled then. Cancelled at once if that already
    /// happened.
    package func bind(_ subscription: ChangeSubscription) {
        let ended = state.withLock { state in
            if state.cancelled { return true }
            state.subscription = subscription
            return false
        }
        if ended { subscription.cancel() }
    }

    /// Hands `element` to the waiting consumer, or queues it, folding the queue when it is full.
    package func push(_ element: Element) {
        let waiter: CheckedContinuation<Element?, Never>? = state.withLock { state in
            guard !state.finished, !state.cancelled else { return nil }
            if let admit, !admit(element) { return nil }
            if let waiter = state.waiter {
                // A consumer waits only on an empty queue, so nothing is overtaken.
                state.waiter = nil
                return waiter
            }
            if state.count >= state.limit {
                var waiting = Array(state.queue[state.head...])
                waiting.append(element)
                state.queue = fold(waiting)
                state.head = 0
                state.limit = max(capacity, 2 * state.queue.count)
            } else {
                state.queue.append(element)
            }
            return nil
        }
        waiter?.resume(returning: element)
    }

    /// Ends the stream once the queued events are read.
    package func finish() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next event; `nil` when the stream finished (and was read to its end) or was cancelled.
    private func next() async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let ready: Element?? = state.withLock { state in
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

    /// Stops delivering: a waiting consumer gets `nil`, the queue is dropped and the bound
    /// subscription cancelled. Idempotent.
    package func cancel() {
        let (waiter, subscription) = state.withLock { state in
            defer {
                state.waiter = nil
                state.cancelled = true
                state.queue = []
                state.head = 0
                state.subscription = nil
            }
            return (state.waiter, state.subscription)
        }
        waiter?.resume(returning: nil)
        subscription?.cancel()
    }

    /// The stream a subscriber iterates, each event passed through `transform` as it is read; it
    /// holds this mailbox, and ends when the mailbox finishes or the consuming task is cancelled.
    package func stream<Output: Sendable>(_ transform: @escaping @Sendable (Element) -> Output) -> AsyncStream<Output> {
        AsyncStream(unfolding: { [self] in await next().map(transform) }, onCancel: { [self] in cancel() })
    }

    /// The stream of the events as they are.
    package func stream() -> AsyncStream<Element> {
        stream { $0 }
    }
}
