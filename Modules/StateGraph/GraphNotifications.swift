/// What one change must notify once it has spread through the graph: computed nodes' relays, kept
/// apart (no existential, no reference counting of the list), and stored nodes and observers.
@usableFromInline
struct GraphNotifications {
    /// Each retained once, released by `deliver`. Freed by `discard()` (the thread's list lives as
    /// long as the thread).
    @usableFromInline var relays = TrivialList<Unmanaged<ObservationRelay>>()
    @usableFromInline var others: [any GraphNotifying] = []

    @inlinable init() {}

    @inlinable
    mutating func append(relay: ObservationRelay) {
        relays.append(.passRetained(relay))
    }

    @inlinable
    mutating func append(_ item: any GraphNotifying) {
        others.append(item)
    }

    /// Notifies everything (or queues it for the end of the thread's batch) and empties the lists,
    /// keeping their capacity.
    @inlinable
    mutating func deliver(on thread: EvaluationThread) {
        if relays.isEmpty && others.isEmpty { return }
        deliverSlowly(on: thread)
    }

    @usableFromInline
    mutating func deliverSlowly(on thread: EvaluationThread) {
        if let batch = thread.batch {
            batch.enqueue((0..<relays.count).map { relays[$0].takeRetainedValue() })
            batch.enqueue(others)
        } else {
            for index in 0..<relays.count {
                relays[index]._withUnsafeGuaranteedRef { $0.notifyObservers() }
                relays[index].release()
            }
            for item in others { item.notifyObservers() }
        }
        relays.removeAll()
        if !others.isEmpty { others.removeAll(keepingCapacity: true) }
    }

    /// Frees the relay list's memory (after `deliver`).
    @usableFromInline
    mutating func discard() {
        relays.deallocate()
    }
}
