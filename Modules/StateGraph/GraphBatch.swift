import PlistCodec

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
///
/// - Parameter body: The writes; a batch inside it joins this one.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws; the writes it made before throwing stay, and observers are told of them.
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
    /// Suite writes held until the batch ends, each binding once.
    private var suiteWrites: [DeferredSuiteWrite] = []
    private var suiteWriteIDs = Set<ObjectIdentifier>()
    /// Calls to make after the observers were told (another writer's change reaching an `onDidSet`).
    private var afterFlush: [() -> Void] = []

    /// Makes `body` run when the batch ends, after its observers, outside every lock of the batch.
    func runAfterFlush(_ body: @escaping () -> Void) {
        afterFlush.append(body)
    }

    /// Holds a suite-backed node's write until the batch ends.
    func deferSuiteWrite(_ write: DeferredSuiteWrite) {
        if suiteWriteIDs.insert(write.id).inserted { suiteWrites.append(write) }
    }

    /// Queues `items`, each at most once per batch.
    @usableFromInline
    func enqueue(_ items: [any GraphNotifying]) {
        for item in items where seen.insert(ObjectIdentifier(item)).inserted {
            queued.append(item)
        }
    }

    /// Writes the held suite writes (one write per suite), then notifies everything queued, once each.
    func flush() {
        if !suiteWrites.isEmpty {
            let writes = suiteWrites
            suiteWrites = []
            suiteWriteIDs = []
            DeferredSuiteWrite.flush(writes)
        }
        let items = queued
        queued = []
        seen = []
        for item in items { item.notifyObservers() }
        let calls = afterFlush
        afterFlush = []
        for call in calls { call() }
    }
}

/// A suite-backed node's write held by a batch: at the batch's end, the node's value then is written.
struct DeferredSuiteWrite {
    let id: ObjectIdentifier
    let entry: SuiteEntry
    let key: String
    let withWriteLock: (() -> Void) -> Void
    let encoded: () -> PlistValue??
    let flushed: (PlistValue?, (any Error)?) -> Void

    init<Value, S>(binding: SuiteBinding<Value>, node: StoredNode<Value, S>) {
        id = ObjectIdentifier(binding)
        entry = binding.entry
        key = binding.key
        withWriteLock = { body in binding.withWriteLock(body) }
        encoded = { binding.encodedForFlush(of: node) }
        flushed = { binding.flushed($0, error: $1) }
    }

    /// Writes each suite's held keys in one write, holding every binding's lock (in one order, so two
    /// flushes cannot wait for each other), so no set or reload of those nodes comes in between.
    static func flush(_ writes: [DeferredSuiteWrite]) {
        var bySuite: [ObjectIdentifier: [DeferredSuiteWrite]] = [:]
        for write in writes { bySuite[ObjectIdentifier(write.entry), default: []].append(write) }
        for (_, group) in bySuite {
            withSuiteWriteLocks(group.map { ($0.id, $0.withWriteLock) }) {
                var values: [(write: DeferredSuiteWrite, value: PlistValue?)] = []
                for write in group {
                    if case .some(let value) = write.encoded() { values.append((write, value)) }
                }
                guard !values.isEmpty else { return }
                do {
                    try group[0].entry.suite.updateAll { dictionary in
                        for (write, value) in values { dictionary[write.key] = value }
                    }
                    for (write, value) in values { write.flushed(value, nil) }
                } catch {
                    for (write, value) in values { write.flushed(value, error) }
                }
            }
        }
    }
}
