import Foundation

/// Live results at one moment, for code that is not on the main actor: every section with the
/// read-only copies of its objects, and what changed since the previous snapshot.
///
/// ```swift
/// for try await snapshot in manager.results(Order.self, sectionNameKeyPath: "status",
///                                           sortedBy: [SortDescriptor(\.orderID)]) {
///     for section in snapshot.sections {
///         print(section.name, section.objects.map(\.orderID))
///     }
/// }
/// ```
///
/// ``SQLiteStorageManager/results(_:sectionNameKeyPath:matching:fetchLimit:sortedBy:)`` makes them.
public struct ResultsSnapshot<Object: Sendable>: Sendable {
    /// The sections, in order (one section named `""` when there is no section key).
    public let sections: [ResultsSectionInfo<Object>]
    /// What changed since the previous snapshot of the same sequence; empty in the first.
    public let changes: ResultsChanges

    /// Every object, in order.
    public var fetchedObjects: [Object] { sections.flatMap(\.objects) }
}

extension SQLiteStorageManager {
    /// Live results as an asynchronous sequence: the first snapshot holds the current results, and
    /// each commit that changes them (in this process or another) yields the next, with its changes.
    ///
    /// ```swift
    /// for try await snapshot in manager.results(Order.self, sectionNameKeyPath: "status",
    ///                                           sortedBy: [SortDescriptor(\.orderID)]) {
    ///     print(snapshot.sections.map { "\($0.name): \($0.numberOfObjects)" }, snapshot.changes.objects.count)
    /// }
    /// ```
    ///
    /// The sequence reads through a storage of its own on a task of its own, never the main actor.
    /// Read-only copies are made once per changed object and kept; assembling a snapshot costs O(n).
    /// A to-many relationship in a copy is refreshed when its members change, not when a member's own
    /// values do. The sequence ends when the manager goes away, and throws
    /// ``StorageError/unsupportedQuery(_:)`` for a query with no SQL form.
    public func results<Entity: StorageEntity>(_ type: Entity.Type, sectionNameKeyPath: String? = nil,
                                               matching predicate: Predicate<Entity>? = nil, fetchLimit: Int? = nil,
                                               sortedBy descriptors: [SortDescriptor<Entity>] = [])
        -> AsyncThrowingStream<ResultsSnapshot<Entity.ReadOnly>, Error> {
        let (stream, continuation) = AsyncThrowingStream<ResultsSnapshot<Entity.ReadOnly>, Error>.makeStream(bufferingPolicy: .unbounded)
        guard let schema = model.byName[Entity.entityName] else {
            continuation.finish(throwing: StorageError.model("\(Entity.self) is not one of the model's entities"))
            return stream
        }
        let query: CompiledQuery
        do {
            query = try CompiledQuery(schema: schema, predicate: predicate, sortedBy: descriptors,
                                      sectionNameKeyPath: sectionNameKeyPath, fetchLimit: fetchLimit)
        } catch {
            continuation.finish(throwing: error)
            return stream
        }
        let changes = self.changes()
        let producer = SnapshotProducer<Entity>(schema: schema, query: query, manager: self)
        let task = Task.detached {
            do {
                try producer.start(continuation)
                for await change in changes {
                    try Task.checkCancellation()
                    try producer.apply(change, continuation)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// Keeps one sequence's results and read-only copies; used only by its task.
private final class SnapshotProducer<Entity: StorageEntity> {
    private let live: LiveResults<Entity>
    private var copies: [Int64: Entity.ReadOnly] = [:]

    init(schema: EntitySchema, query: CompiledQuery, manager: SQLiteStorageManager) {
        let hub = manager.hub
        let context = StorageContext(model: manager.model, access: .reader(manager.database), report: { hub.report($0) })
        live = LiveResults(schema: schema, query: query, context: context)
    }

    func start(_ continuation: AsyncThrowingStream<ResultsSnapshot<Entity.ReadOnly>, Error>.Continuation) throws {
        try live.fetch()
        for row in live.engine.rows { copies[row.rowID] = live.readOnly(row) }
        continuation.yield(snapshot(ResultsChanges()))
    }

    func apply(_ change: StorageChanges,
               _ continuation: AsyncThrowingStream<ResultsSnapshot<Entity.ReadOnly>, Error>.Continuation) throws {
        guard let changes = try live.engine.apply(change, live.context) else { return }
        for row in changes.rows {
            if row.kind == .delete, live.engine.byID[row.row.rowID] == nil {
                copies[row.row.rowID] = nil
            } else if let current = live.engine.byID[row.row.rowID] {
                copies[row.row.rowID] = live.readOnly(current)
            }
        }
        continuation.yield(snapshot(ResultsChanges(changes, entityName: Entity.entityName)))
    }

    private func snapshot(_ changes: ResultsChanges) -> ResultsSnapshot<Entity.ReadOnly> {
        let engine = live.engine
        let sections = engine.sections.map { section in
            ResultsSectionInfo(name: live.sectionName(section.key),
                               objects: engine.rows[section.start..<(section.start + section.count)].map { row in
                                   copies[row.rowID] ?? live.readOnly(row)
                               })
        }
        return ResultsSnapshot(sections: sections, changes: changes)
    }
}
