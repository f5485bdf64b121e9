import Foundation

/// Live, sectioned results of a query on `viewStorage`: WooCommerce's `ResultsController` (their
/// wrapper of `NSFetchedResultsController`), on ManagedStorage.
///
/// ```swift
/// let controller = ResultsController<Order>(viewStorage: manager.viewStorage,
///                                           sectionNameKeyPath: "status",
///                                           matching: #Predicate { $0.total > 0 },
///                                           sortedBy: [SortDescriptor(\.orderID)])
/// controller.onDidChangeObject = { order, indexPath, type, newIndexPath in
///     print(type, order.orderID, indexPath as Any, newIndexPath as Any)
/// }
/// try controller.performFetch()
/// ```
///
/// After ``performFetch()``, every commit that changes the results reaches the callbacks, in the
/// order a table view's batch update accepts them: ``onWillChangeContent``, the section and object
/// changes, ``onDidChangeContent``. Commits are applied from the rows each transaction changed: this
/// manager's at once, other managers' of the store (other processes', or another manager of the
/// same file) within ``StorageConfiguration/otherProcessPollInterval``, read from the store's change
/// log. A commit whose rows are unknown (another program's, see
/// ``StorageChanges/fromAnotherProcess``) is applied by a refetch compared with the rows held.
/// ``SQLiteStorageManager/reset()`` reaches ``onDidResetContent``. Setting ``predicate`` or
/// ``sortDescriptors`` refetches and reports the difference the same way.
///
/// With a section key, the results are sorted by it first (ascending, unless the first sort
/// descriptor names it), so each section is one run of rows. Objects come out as read-only copies
/// (``ReadOnlyConvertible/toReadOnly()``), made when asked for.
@MainActor
public final class ResultsController<Entity: StorageEntity> {
    /// What happened to an object or a section.
    public typealias ChangeType = ResultsChangeType
    /// A section: name, number of objects, objects.
    public typealias SectionInfo = ResultsSectionInfo<Entity.ReadOnly>

    private let viewStorage: StorageType
    private let context: StorageContext?
    private let sectionNameKeyPath: String?
    private let fetchLimit: Int?
    private var live: LiveResults<Entity>?
    nonisolated(unsafe) private var listener: Task<Void, Never>?
    /// The sequence number of the last manager change handled (for tests that wait for it).
    package private(set) var handledChangeSequence = 0
    /// How many changes the controller applied by fetching every row again and comparing, rather
    /// than object by object (for tests).
    package var refetchCount: Int { live?.engine.refetches ?? 0 }

    /// The filter; setting it refetches and reports the difference through the callbacks.
    public var predicate: Predicate<Entity>? {
        didSet { refresh() }
    }

    /// The sort; setting it refetches and reports the difference through the callbacks.
    public var sortDescriptors: [SortDescriptor<Entity>]? {
        didSet { refresh() }
    }

    /// Called before the changes of one commit are reported.
    public var onWillChangeContent: (() -> Void)?
    /// Called after the changes of one commit were reported.
    public var onDidChangeContent: (() -> Void)?
    /// Called for each object inserted, deleted, moved or updated: the object's read-only copy (as it
    /// was, for a delete), where it was, what happened, and where it is.
    public var onDidChangeObject: ((_ object: Entity.ReadOnly, _ indexPath: IndexPath?, _ type: ChangeType,
                                    _ newIndexPath: IndexPath?) -> Void)?
    /// Called for each section inserted (index after) or deleted (index before).
    public var onDidChangeSection: ((_ sectionInfo: SectionInfo, _ sectionIndex: Int, _ type: ChangeType) -> Void)?
    /// Called after ``SQLiteStorageManager/reset()``, once the results were fetched again.
    public var onDidResetContent: (() -> Void)?

    /// Results of `Entity` on `viewStorage`.
    ///
    /// - Parameters:
    ///   - viewStorage: The manager's `viewStorage`.
    ///   - sectionNameKeyPath: The name of a stored attribute (or to-one relationship) whose value
    ///     names each object's section; `nil` for one section holding everything.
    ///   - predicate: Which objects; `nil` for all.
    ///   - fetchLimit: At most this many objects (the first in sort order).
    ///   - descriptors: The order (then the row id).
    public init(viewStorage: StorageType, sectionNameKeyPath: String? = nil, matching predicate: Predicate<Entity>? = nil,
                fetchLimit: Int? = nil, sortedBy descriptors: [SortDescriptor<Entity>]) {
        self.viewStorage = viewStorage
        self.context = viewStorage as? StorageContext
        self.sectionNameKeyPath = sectionNameKeyPath
        self.fetchLimit = fetchLimit
        self.predicate = predicate
        self.sortDescriptors = descriptors
    }

    /// Results of `Entity` on `storageManager`'s `viewStorage`.
    public convenience init(storageManager: StorageManagerType, sectionNameKeyPath: String? = nil,
                            matching predicate: Predicate<Entity>? = nil, fetchLimit: Int? = nil,
                            sortedBy descriptors: [SortDescriptor<Entity>]) {
        self.init(viewStorage: storageManager.viewStorage, sectionNameKeyPath: sectionNameKeyPath,
                  matching: predicate, fetchLimit: fetchLimit, sortedBy: descriptors)
    }

    deinit {
        listener?.cancel()
    }

    /// Fetches the objects (no callbacks) and starts following the store's commits.
    ///
    /// - Throws: ``StorageError/unsupportedQuery(_:)`` for a predicate, sort or section key with no SQL
    ///   form; ``StorageError/misuse(_:)`` when `viewStorage` is not a ManagedStorage storage; a read error.
    public func performFetch() throws(StorageError) {
        guard let context, let schema = context.model.byName[Entity.entityName] else {
            throw .misuse("ResultsController needs the viewStorage of a SQLiteStorageManager whose model has \(Entity.self)")
        }
        let query = try CompiledQuery(schema: schema, predicate: predicate, sortedBy: sortDescriptors ?? [],
                                      sectionNameKeyPath: sectionNameKeyPath, fetchLimit: fetchLimit)
        startListening()
        let live = LiveResults<Entity>(schema: schema, query: query, context: context)
        try live.fetch()
        self.live = live
    }

    // MARK: Reading

    /// Whether no object matches.
    public var isEmpty: Bool { (live?.engine.rows.count ?? 0) == 0 }

    /// How many objects match.
    public var numberOfObjects: Int { live?.engine.rows.count ?? 0 }

    /// Read-only copies of every object, in order. Makes one copy per object: avoid it in code that
    /// runs often.
    public var fetchedObjects: [Entity.ReadOnly] {
        guard let live else { return [] }
        return live.engine.rows.map { live.readOnly($0) }
    }

    /// The sections, in order (one section named `""` when there is no section key).
    public var sections: [SectionInfo] {
        guard let live else { return [] }
        return live.engine.sections.map { live.sectionInfo($0) }
    }

    /// The object at `indexPath`. An index path outside the results is a programming error; use
    /// ``safeObject(at:)`` when it may be.
    public func object(at indexPath: IndexPath) -> Entity.ReadOnly {
        guard let object = safeObject(at: indexPath) else {
            fatalError("ResultsController<\(Entity.self)>.object(at:): \(indexPath) is outside the results (\(sections.map(\.numberOfObjects)) objects per section)")
        }
        return object
    }

    /// The object at `indexPath`, or `nil` when there is none.
    public func safeObject(at indexPath: IndexPath) -> Entity.ReadOnly? {
        guard let live, let flat = live.flatIndex(of: indexPath) else { return nil }
        return live.readOnly(live.engine.rows[flat])
    }

    /// The position of `indexPath` in ``fetchedObjects``.
    public func objectIndex(from indexPath: IndexPath) -> Int {
        guard indexPath.count == 2 else { return 0 }
        guard let live, indexPath.section >= 0, indexPath.section < live.engine.sections.count else { return indexPath.row }
        return live.engine.sections[indexPath.section].start + indexPath.row
    }

    /// The index path of the first object (in order) that `matching` accepts.
    public func indexPath(forObjectMatching matching: (Entity.ReadOnly) -> Bool) -> IndexPath? {
        guard let live else { return nil }
        for (flat, row) in live.engine.rows.enumerated() where matching(live.readOnly(row)) {
            return live.engine.indexPath(ofFlat: flat)
        }
        return nil
    }

    // MARK: Changes

    private func startListening() {
        guard listener == nil, let manager = context?.manager else { return }
        let changes = manager.changes()
        // Changes published before the stream existed are in the fetch that follows.
        handledChangeSequence = manager.publishedChangeSequence
        listener = Task { [weak self] in
            for await change in changes {
                guard let self else { return }
                self.handle(change)
            }
        }
    }

    private func handle(_ change: StorageChanges) {
        defer { handledChangeSequence = max(handledChangeSequence, change.sequence) }
        guard let live else { return }
        if !change.resetEntities.isEmpty {
            do {
                try live.fetch()
            } catch {
                live.engine.needsRefetch = true
                context?.record(error)
            }
            onDidResetContent?()
            return
        }
        do {
            guard let changes = try live.engine.apply(change, live.context) else { return }
            deliver(changes, live)
        } catch {
            context?.record(error)
        }
    }

    /// Refetches after a new predicate or sort, reporting the difference.
    private func refresh() {
        guard let live else { return }
        do {
            let query = try CompiledQuery(schema: live.engine.schema, predicate: predicate, sortedBy: sortDescriptors ?? [],
                                          sectionNameKeyPath: sectionNameKeyPath, fetchLimit: fetchLimit)
            guard let changes = try live.engine.change(query: query, live.context) else { return }
            deliver(changes, live)
        } catch {
            context?.record(error)
        }
    }

    private func deliver(_ changes: EngineChanges, _ live: LiveResults<Entity>) {
        onWillChangeContent?()
        if let onDidChangeSection {
            for section in changes.orderedSections {
                let info = SectionInfo(name: live.sectionName(section.key), objects: section.rows.map { live.readOnly($0) })
                onDidChangeSection(info, section.index, section.kind.public)
            }
        }
        if let onDidChangeObject {
            for change in changes.orderedRows {
                let object = live.readOnly(change.row, existing: change.kind != .delete)
                onDidChangeObject(object, change.old, change.kind.public, change.new)
            }
        }
        onDidChangeContent?()
    }
}
