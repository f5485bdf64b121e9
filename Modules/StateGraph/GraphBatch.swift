/// Applies several writes and notifies observers once, at the end.
///
/// Inside the batch every write takes effect at once (a read sees it, and computed nodes that depend
/// on it are stale), but observers (`withGraphObservationTracking`, tracking scopes, subscriptions, `values()`, Observation's
/// `withObservationTracking`) are told only when the outermost batch ends, each once, however many
/// of the nodes it read changed.
///
/// ```swift
/// withGraphBatch {
///     model.firstName = "Ada"
///     model.lastName = "Lovelace"
/// }   // an observer of `fullName` runs once here, and sees "Ada Lovelace"
/// ```
///
/// Batches are per thread: writes on another thread are not part of this one.
public func withGraphBatch<T>(_ body: () throws -> T) rethrows -> T {
    let thread = EvaluationThread.current
    if let batch = thread.batch {
        batch.depth += 1
        defer { batch.depth -= 1 }
        return try body()
    }
    let batch = GraphBatch()
    thread.batch = batch
    defer {
        thread.batch = nil
        batch.flush()
    }
    return try body()
}

/// The notifications a running batch holds back.
@usableFromInline
final class GraphBatch {
    var depth = 1
    private var queued: [any GraphNotifying] = []
    private var seen = Set<ObjectIdentifier>()

    /// Queues `items`, each at most once per batch.
    @usableFromInline
    func enqueue(_ items: [any GraphNotifying]) {
        for item in items where seen.insert(ObjectIdentifier(item)).inserted {
            queued.append(item)
        }
    }

    /// Notifies everything queued, once each.
    func flush() {
        let items = queued
        queued = []
        seen = []
        for item in items { item.notifyObservers() }
    }
}
