import Foundation

#if !canImport(UIKit)
extension IndexPath {
    #if !canImport(AppKit)
    /// An index path of a row in a section (UIKit and AppKit spell it so; Foundation on Linux does not).
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The section: the first index.
    public var section: Int {
        get { self[0] }
        set { self[0] = newValue }
    }

    /// The item in the section: the second index.
    public var item: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
    #endif

    /// An index path of a row in a section, as UIKit spells it, so table code ports unchanged.
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// The row in the section: the second index.
    public var row: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
}
#endif

/// What happened to an object or a section of live results: `NSFetchedResultsChangeType`'s cases,
/// with its raw values.
///
/// ```swift
/// controller.onDidChangeObject = { order, indexPath, type, newIndexPath in
///     switch type {
///     case .insert: print("insert at", newIndexPath!)
///     case .delete: print("delete at", indexPath!)
///     case .move: print("move from", indexPath!, "to", newIndexPath!)
///     case .update: print("reload", indexPath!)
///     }
/// }
/// ```
public enum ResultsChangeType: UInt, Sendable, Hashable {
    /// New at `newIndexPath`.
    case insert = 1
    /// Gone from `indexPath`.
    case delete = 2
    /// From `indexPath` to `newIndexPath`; the object may have changed too.
    case move = 3
    /// Changed, at `indexPath` before and `newIndexPath` after, in the same place among its neighbours.
    case update = 4
}

/// One save's effect on live results, in the terms a table view's batch update takes: deletions and
/// the sources of moves and updates are index paths before the change, insertions and the
/// destinations of moves are index paths after it.
///
/// Applying it to the rows before, in that order (delete sections and rows, then insert sections and
/// rows, then move), gives exactly the rows after.
///
/// Each ``ResultsSnapshot`` carries the changes since the one before:
///
/// ```swift
/// for try await snapshot in manager.results(Order.self, sortedBy: [SortDescriptor(\.orderID)]) {
///     let changes = snapshot.changes
///     print("deleted", changes.deleted, "inserted", changes.inserted, "moved", changes.moved.count)
/// }
/// ```
public struct ResultsChanges: Sendable, Equatable {
    /// One object's change: what happened, where the object was and where it is.
    ///
    /// ```swift
    /// for change in snapshot.changes.objects where change.type == .move {
    ///     print(change.objectID, change.indexPath!, "->", change.newIndexPath!)
    /// }
    /// ```
    public struct ObjectChange: Sendable, Equatable {
/// Insert, delete, move or update; says which of the two index paths is set.
        public let type: ResultsChangeType
        /// Where the object was (`nil` for an insert).
        public let indexPath: IndexPath?
        /// Where the object is now (`nil` for a delete).
        public let newIndexPath: IndexPath?
        /// The object.
        public let objectID: StorageObjectID
    }

    /// Sections deleted, by their index before the change, ascending.
    public internal(set) var deletedSections: [Int] = []
    /// Sections inserted, by their index after the change, ascending.
    public internal(set) var insertedSections: [Int] = []
    /// Object changes in the order the callbacks report them: deletes, inserts, moves and updates.
    public internal(set) var objects: [ObjectChange] = []

    /// Whether nothing changed.
    public var isEmpty: Bool { deletedSections.isEmpty && insertedSections.isEmpty && objects.isEmpty }

    /// Index paths of deleted objects (before the change).
    public var deleted: [IndexPath] { objects.filter { $0.type == .delete }.compactMap(\.indexPath) }
    /// Index paths of inserted objects (after the change).
    public var inserted: [IndexPath] { objects.filter { $0.type == .insert }.compactMap(\.newIndexPath) }
    /// Moved objects: from (before) and to (after).
    public var moved: [(from: IndexPath, to: IndexPath)] {
        objects.filter { $0.type == .move }.compactMap { change in
            guard let from = change.indexPath, let to = change.newIndexPath else { return nil }
            return (from, to)
        }
    }
    /// Index paths of updated objects (before the change).
    public var updated: [IndexPath] { objects.filter { $0.type == .update }.compactMap(\.indexPath) }

/// No changes: what the first snapshot of a sequence carries.
    public init() {}
}

/// A section of live results: its name, how many objects it holds, and their read-only copies.
///
/// WooCommerce's `ResultsController.SectionInfo`. The copies are made when ``objects`` is first read.
///
/// ```swift
/// try controller.performFetch()
/// for section in controller.sections {
///     print(section.name, section.numberOfObjects)
/// }
/// ```
// @unchecked Sendable: `made` is only touched under `lock`, and `make` only runs under it; the rest are constants
public final class ResultsSectionInfo<Object: Sendable>: @unchecked Sendable {
    /// The section's name: the section key's value as text (`""` for `nil`, and for results without
    /// sections).
    public let name: String
    /// How many objects the section holds.
    public let numberOfObjects: Int
    private let make: () -> [Object]
    private var made: [Object]?
    private let lock = NSLock()

    init(name: String, numberOfObjects: Int, objects make: @escaping () -> [Object]) {
        self.name = name
        self.numberOfObjects = numberOfObjects
        self.make = make
    }

    init(name: String, objects: [Object]) {
        self.name = name
        self.numberOfObjects = objects.count
        self.made = objects
        self.make = { objects }
    }

    /// How many objects the section holds (``numberOfObjects``).
    public var count: Int { numberOfObjects }

    /// The section's objects, as read-only copies, in order.
    public var objects: [Object] {
        lock.lock()
        defer { lock.unlock() }
        if let made { return made }
        let objects = make()
        made = objects
        return objects
    }
}

extension ResultsChanges {
    /// The public form of an engine's changes, in callback order.
    init(_ changes: EngineChanges, entityName: String) {
        self.init()
        deletedSections = changes.sections.filter { $0.kind == .delete }.map(\.index).sorted()
        insertedSections = changes.sections.filter { $0.kind == .insert }.map(\.index).sorted()
        objects = changes.orderedRows.map { change in
            ObjectChange(type: change.kind.public, indexPath: change.old, newIndexPath: change.new,
                         objectID: StorageObjectID(entityName: entityName, rowID: change.row.rowID))
        }
    }
}

extension EngineChanges {
    /// Row changes in callback order: deletes (last first), inserts (first first), moves, updates.
    var orderedRows: [RowChange] {
        let deletes = rows.filter { $0.kind == .delete }.sorted { ($0.old ?? IndexPath()) > ($1.old ?? IndexPath()) }
        let inserts = rows.filter { $0.kind == .insert }.sorted { ($0.new ?? IndexPath()) < ($1.new ?? IndexPath()) }
        return deletes + inserts + rows.filter { $0.kind == .move } + rows.filter { $0.kind == .update }
    }

    /// Section changes in callback order: deletes (last first), then inserts (first first).
    var orderedSections: [SectionChange] {
        sections.filter { $0.kind == .delete }.sorted { $0.index > $1.index }
            + sections.filter { $0.kind == .insert }.sorted { $0.index < $1.index }
    }
}

extension EngineChanges.Kind {
    var `public`: ResultsChangeType {
        switch self {
        case .insert: .insert
        case .delete: .delete
        case .move: .move
        case .update: .update
        }
    }
}
