import Foundation
import ManagedStorage
import ManagedTestModel

// WooCommerce's documented examples, compiled against ManagedStorage. WooCommerce's docs
// (docs/STORAGE.md, docs/YOSEMITE.md, docs/architecture-overview.md) describe Storage in prose and
// carry no Storage code; what documents it by example is the code those pages point at. Taken here
// from woocommerce-ios 2077debb97b5: Storage's own tests (DummyStack, NSManagedObjectContextStorageTests,
// CoreDataManagerTests), Yosemite's stores (CouponStore, OrderStore: the derived-storage pattern),
// ResultsController+UIKit and its tests. The code is theirs in shape and call for call; every change
// carries a comment saying why (`Linux:` for the platform, `Swift 6:` for the language mode).
// WooDocumentedExamplesTests runs them.

// MARK: - Storage/StorageTests/Tools/DummyStack.swift

/// Dummy Sample Entity
///
// Linux: no CoreData, so no NSManagedObject and @NSManaged; a @StorageEntity class instead.
@StorageEntity
final class DummyEntity {
    var key: String
    var value: Int
}

/// InMemory Stack with Dynamic Model
///
// Linux: no NSManagedObjectModel or NSInMemoryStoreType; the model is the entity list and the stack
// an in-memory manager. Its storage for writing is the storage of an operation, so the tests run their
// bodies inside `writeAndWait` instead of reading a `context` property.
final class DummyStack {
    let model = StorageModel(entities: [DummyEntity.self])

    let manager: SQLiteStorageManager

    init() throws {
        manager = try SQLiteStorageManager.inMemory(model: model, name: "Dummy")
    }
}

// MARK: - Yosemite/Yosemite/Stores/CouponStore.swift and OrderStore.swift (the derived-storage pattern)

/// What the network layer hands a store: a read-only order (WooCommerce's `Networking.Order`).
struct RemoteOrder: Sendable, Equatable {
    let orderID: Int64
    let status: String
    let total: Double
}

extension Order {
    /// WooCommerce's `Storage.Order.update(with:)`.
    func update(with readOnlyOrder: RemoteOrder) {
        orderID = readOnlyOrder.orderID
        status = readOnlyOrder.status
        total = readOnlyOrder.total
    }
}

extension StorageType {
    /// Retrieves the Stored Order.
    ///
    // Linux: NSPredicate(format:) and WooFoundation's key-path operators (`\Order.orderID == orderID`)
    // do not exist; a #Predicate says the same.
    func loadOrder(orderID: Int64) -> Order? {
        let predicate = #Predicate<Order> { $0.orderID == orderID }
        return firstObject(ofType: Order.self, matching: predicate)
    }

    /// Deletes the Stored Order (StorageType+Deletions).
    func deleteOrder(orderID: Int64) {
        guard let order = loadOrder(orderID: orderID) else {
            return
        }
        deleteObject(order)
    }
}

/// A store as Yosemite writes one: a storage manager injected, a shared derived storage, upserts in
/// background, completion on the main queue.
final class OrderUpsertStore {
    private let storageManager: StorageManagerType

    private lazy var sharedDerivedStorage: StorageType = {
        return storageManager.writerDerivedStorage
    }()

    init(storageManager: StorageManagerType) {
        self.storageManager = storageManager
    }

    /// Updates (OR Inserts) the specified ReadOnly Order Entities *in a background thread*. onCompletion will be called
    /// on the main thread!
    ///
    // Swift 6: DispatchQueue.main.async takes a @Sendable closure, so onCompletion must be one.
    func upsertStoredOrdersInBackground(readOnlyOrders: [RemoteOrder],
                                        removeAllStoredOrders: Bool = false,
                                        onCompletion: @escaping @Sendable () -> Void) {
        let derivedStorage = sharedDerivedStorage
        derivedStorage.perform { [weak self] in
            guard let self = self else { return }
            if removeAllStoredOrders {
                derivedStorage.deleteAllObjects(ofType: Order.self)
            }
            self.upsertStoredOrders(readOnlyOrders: readOnlyOrders, in: derivedStorage)
        }

        storageManager.saveDerivedType(derivedStorage: derivedStorage) {
            DispatchQueue.main.async(execute: onCompletion)
        }
    }

    /// Deletes the Storage.Order with the specified `orderID` in a background thread.
    /// Triggers `onCompletion` on the main thread when done.
    ///
    // Swift 6: as above.
    func deleteStoredOrder(orderID: Int64, onCompletion: @escaping @Sendable () -> Void) {
        let derivedStorage = sharedDerivedStorage
        derivedStorage.perform {
            derivedStorage.deleteOrder(orderID: orderID)
        }

        storageManager.saveDerivedType(derivedStorage: derivedStorage) {
            DispatchQueue.main.async(execute: onCompletion)
        }
    }

    /// Updates (OR Inserts) the specified ReadOnly Order Entities into the Storage Layer.
    ///
    func upsertStoredOrders(readOnlyOrders: [RemoteOrder], in storage: StorageType) {
        for readOnlyOrder in readOnlyOrders {
            let storageOrder = storage.loadOrder(orderID: readOnlyOrder.orderID) ?? storage.insertNewObject(ofType: Order.self)
            storageOrder.update(with: readOnlyOrder)
        }
    }

    /// Updates (OR Inserts) the specified ReadOnly Order Entity into the Storage Layer.
    ///
    func upsertStoredOrder(readOnlyOrder: RemoteOrder, in storage: StorageType) {
        upsertStoredOrders(readOnlyOrders: [readOnlyOrder], in: storage)
    }
}

// MARK: - WooCommerce/Classes/Tools/ResultsController+UIKit.swift

/// Linux: no UIKit. The parts of UITableView that ResultsController+UIKit calls, recording what a
/// table view would do and checking the row counts a batch update checks (UIKit raises an
/// NSInternalInconsistencyException when they do not add up).
@MainActor
final class FakeTableView {
    enum RowAnimation { case fade }

    private(set) var rowsPerSection: [Int]
    private(set) var log: [String] = []
    private(set) var inconsistencies: [String] = []
    private var batch: (deletedRows: [IndexPath], insertedRows: [IndexPath], deletedSections: [Int], insertedSections: [Int])?
    /// What the data source says once a batch ends (the controller's sections).
    var dataSourceCounts: () -> [Int] = { [] }

    init(rowsPerSection: [Int]) {
        self.rowsPerSection = rowsPerSection
    }

    func beginUpdates() {
        log.append("begin")
        batch = ([], [], [], [])
    }

    func endUpdates() {
        log.append("end")
        guard let batch else { return inconsistencies.append("endUpdates without beginUpdates") }
        self.batch = nil
        let surviving = rowsPerSection.indices.filter { !batch.deletedSections.contains($0) }
        let newCount = surviving.count + batch.insertedSections.count
        var old = surviving.makeIterator()
        var counts: [Int] = []
        for section in 0..<newCount {
            if batch.insertedSections.contains(section) {
                counts.append(batch.insertedRows.filter { $0.section == section }.count)
            } else if let from = old.next() {
                counts.append(rowsPerSection[from] - batch.deletedRows.filter { $0.section == from }.count
                              + batch.insertedRows.filter { $0.section == section }.count)
            }
        }
        let expected = dataSourceCounts()
        if counts != expected { inconsistencies.append("after the batch the table has \(counts) rows, the data source \(expected)") }
        rowsPerSection = expected
    }

    func insertRows(at indexPaths: [IndexPath], with animation: RowAnimation) {
        log.append("insertRows \(indexPaths.map { "\($0.section).\($0.row)" })")
        batch?.insertedRows += indexPaths
    }

    func deleteRows(at indexPaths: [IndexPath], with animation: RowAnimation) {
        log.append("deleteRows \(indexPaths.map { "\($0.section).\($0.row)" })")
        batch?.deletedRows += indexPaths
    }

    func reloadRows(at indexPaths: [IndexPath], with animation: RowAnimation) {
        log.append("reloadRows \(indexPaths.map { "\($0.section).\($0.row)" })")
    }

    func insertSections(_ sections: IndexSet, with animation: RowAnimation) {
        log.append("insertSections \(Array(sections))")
        batch?.insertedSections += Array(sections)
    }

    func deleteSections(_ sections: IndexSet, with animation: RowAnimation) {
        log.append("deleteSections \(Array(sections))")
        batch?.deletedSections += Array(sections)
    }

    func reloadData() {
        log.append("reloadData")
        rowsPerSection = dataSourceCounts()
    }
}

// MARK: - ResultsTableAnimations: Defines the Animations to be applied during Table Update(s)
//
struct ResultsTableAnimations {

    /// TableViewRowAnimation to be applied during Delete OP's.
    ///
    // Linux: FakeTableView.RowAnimation for UITableView.RowAnimation, here and below.
    let delete: FakeTableView.RowAnimation = .fade

    /// TableViewRowAnimation to be applied during Insert OP's.
    ///
    let insert: FakeTableView.RowAnimation = .fade

    /// TableViewRowAnimation to be applied during Move OP's.
    ///
    let move: FakeTableView.RowAnimation = .fade

    /// TableViewRowAnimation to be applied during Update OP's.
    ///
    let update: FakeTableView.RowAnimation = .fade

    /// Standard ResultsTableAnimations Settings
    ///
    static let standard = ResultsTableAnimations()
}


// MARK: - ResultsController >> UITableView Events Forwarder.
//
extension ResultsController {

    /// Forwards Events to the specified UITableView Instance. We'll take care of Inserting / Deleting / Moving and Reloading
    /// Rows and Sections.
    ///
    func startForwardingEvents(to tableView: FakeTableView, with animations: ResultsTableAnimations = .standard) {
        startForwardingContentEvents(to: tableView, with: animations)
        startForwardingObjectEvents(to: tableView, with: animations)
        startForwardingSectionEvents(to: tableView, with: animations)
        startForwardingResetEvents(to: tableView)
    }

    /// Stops forwarding Events: Effectively neutralizes all of the callbacks.
    ///
    func stopForwardingEvents() {
        onWillChangeContent = nil
        onDidChangeContent = nil
        onDidChangeObject = nil
        onDidChangeSection = nil
    }
}


// MARK: - Private Event Forwarding Methods
//
private extension ResultsController {

    /// Sets up all of the Content Events from the inner NSFetchedResultsController (FRC) over to the specified TableView.
    ///
    func startForwardingContentEvents(to tableView: FakeTableView, with animations: ResultsTableAnimations) {
        onWillChangeContent = { [weak tableView] in
            tableView?.beginUpdates()
        }

        onDidChangeContent = { [weak tableView] in
            tableView?.endUpdates()
        }
    }

    /// Sets up all of the Object Events from the inner FRC over to the specified TableView.
    ///
    func startForwardingObjectEvents(to tableView: FakeTableView, with animations: ResultsTableAnimations) {
        onDidChangeObject = { [weak tableView] (object, indexPath, type, newIndexPath) in
            guard let `tableView` = tableView else {
                return
            }

            // Seriously, Apple?
            // https://developer.apple.com/library/archive/releasenotes/iPhone/NSFetchedResultsChangeMoveReportedAsNSFetchedResultsChangeUpdate/index.html
            //
            let fixedType: ChangeType = {
                guard type == .update && newIndexPath != nil && newIndexPath != indexPath else {
                    return type
                }

                return .move
            }()

            switch fixedType {
            case .delete:
                if let indexPath = indexPath {
                    tableView.deleteRows(at: [indexPath], with: animations.delete)
                }
            case .insert:
                if let newIndexPath = newIndexPath {
                    tableView.insertRows(at: [newIndexPath], with: animations.insert)
                }
            case .move:
                if let oldIndexPath = indexPath {
                    tableView.deleteRows(at: [oldIndexPath], with: animations.move)
                }

                if let newIndexPath = newIndexPath {
                    tableView.insertRows(at: [newIndexPath], with: animations.move)
                }
            case .update:
                if let indexPath = indexPath {
                    tableView.reloadRows(at: [indexPath], with: animations.update)
                }
            // Swift 6: ChangeType is a Swift enum of this package, not NSFetchedResultsChangeType, so the
            // switch is exhaustive and `@unknown default: fatalError()` would never run.
            }
        }
    }

    /// Sets up all of the Section Events from the inner FRC over to the specified TableView.
    ///
    func startForwardingSectionEvents(to tableView: FakeTableView, with animations: ResultsTableAnimations) {
        onDidChangeSection = { [weak tableView] (sectionInfo, sectionIndex, type) in
            guard let `tableView` = tableView else {
                return
            }

            let sectionIndexSet = IndexSet(integer: sectionIndex)

            switch type {
            case .delete:
                tableView.deleteSections(sectionIndexSet, with: animations.delete)
            case .insert:
                tableView.insertSections(sectionIndexSet, with: animations.insert)
            default:
                // Linux: no CocoaLumberjack's DDLogError.
                print("## ResultsController: Unsupported Section Event: \(type)")
            }
        }
    }

    /// Sets up all of the Reset Events from the inner FRC over to the specified TableView.
    ///
    func startForwardingResetEvents(to tableView: FakeTableView) {
        onDidResetContent = { [weak tableView] in
            tableView?.reloadData()
        }
    }
}
