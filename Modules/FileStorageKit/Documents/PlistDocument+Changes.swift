import Foundation

extension PlistDocument {
    /// Calls `listener` on FileStorageKit's change thread soon after the file may have changed, by
    /// this process or another (several changes may be told once; a listener re-reads with `read()`).
    /// Deliveries do not need Swift's cooperative pool. They stop when the subscription is cancelled
    /// or released.
    public func onChange(_ listener: @escaping @Sendable () -> Void) -> ChangeSubscription {
        let id = state.withLock {
            let id = nextListener
            nextListener += 1
            listeners[id] = listener
            if monitorSubscription == nil { monitorSubscription = subscribeToMonitor() }
            return id
        }
        return ChangeSubscription { [weak self] in
            guard let self else { return }
            let stale = state.withLock { () -> ChangeSubscription? in
                listeners[id] = nil
                guard listeners.isEmpty else { return nil }
                defer { monitorSubscription = nil }
                return monitorSubscription
            }
            stale?.cancel()
        }
    }

    /// The changes as an async sequence (one element per delivery), until the stream is dropped.
    public func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let subscription = onChange { continuation.yield() }
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }

    /// Caller holds `state`.
    func subscribeToMonitor() -> ChangeSubscription {
        backend.monitor.addListener { [weak self] in
            guard let self else { return }
            for listener in state.withLock({ Array(listeners.values) }) { listener() }
        }
    }
}
