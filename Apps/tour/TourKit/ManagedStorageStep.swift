import Foundation
import ManagedStorage
import OrdersKit

/// The ManagedStorage scenario: the `orders` app's store, WooCommerce's `StorageManagerType` on SQLite.
///
/// Import sample orders, list with a predicate, an update made by a second process seen by this one,
/// and a reset.
struct ManagedStorageStep: TourStep {
    var name: String { "ManagedStorage" }
    var summary: String { "orders in SQLite: a version-1 store migrated, import, a predicate, another process's update seen here, live results in a third, reset()" }

    /// The argument that makes the tour run the `orders` command instead (the second process).
    static let childFlag = "--orders-child"

    @MainActor func run(_ context: TourContext) async throws {
        try openVersion1Store(context)
        let folder = context.folder.appendingPathComponent("store")
        let json = context.file("orders.json")
        try OrderRecord.encoder().encode(SampleOrders.make(count: 500, seed: 7)).write(to: json)
        let records = try OrderRecord.decoder().decode([OrderRecord].self, from: Data(contentsOf: json))
        let manager = try OrdersStore.open(folder: folder)
        let summary = try OrderImport.run(records, into: manager, batchSize: 100)
        let items = try manager.read { $0.countObjects(ofType: OrderItem.self) }
        context.say("orders import orders.json: \(summary.inserted) orders with \(items) items in 5 transactions of 100")
        try check(summary.inserted == 500 && items == records.reduce(0) { $0 + $1.items.count }, "the import lost rows")

        let processing = try manager.read { storage in
            storage.allObjects(ofType: Order.self, matching: #Predicate { $0.status == "processing" },
                               sortedBy: [SortDescriptor(\.total, order: .reverse)]).map { ($0.orderID, $0.total) }
        }
        context.say("#Predicate { $0.status == \"processing\" }, by total descending: \(processing.count) orders; first "
                    + processing.prefix(3).map { "#\($0.0) (\($0.1))" }.joined(separator: ", "))
        try check(processing.count == records.filter { $0.status == "processing" }.count, "the predicate's count differs")
        let target = try processing.first.map(\.0) ?? { throw TourFailure("no processing order") }()

        // A second process: this program again, running `orders set-status` on the same store.
        let child = try runChild(context, ["set-status", "--folder", folder.path, "\(target)", "completed"])
        context.say("another process: orders set-status \(target) completed → \(child.trimmingCharacters(in: .newlines))")
        let seen = manager.viewStorage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == target })?.status
        context.say("this process's viewStorage reads #\(target): \(seen ?? "nothing")")
        try check(seen == "completed", "the other process's update was not seen")

        // Live results: `orders watch` in one process prints what `orders` in others change.
        let others = processing.dropFirst().prefix(2).map(\.0)
        try check(others.count == 2, "too few processing orders to change")
        let watched = try watch(context, folder: folder) {
            _ = try runChild(context, ["set-status", "--folder", folder.path, "\(others[0])", "on-hold"])
            _ = try runChild(context, ["delete", "--folder", folder.path, "\(others[1])"])
        }
        context.say("orders watch --status processing, while two other processes change orders:")
        for line in watched { context.say("    " + line) }
        try check(watched.contains { $0.hasPrefix("delete") && $0.contains("#\(others[0]) ") }
                  && watched.contains { $0.hasPrefix("delete") && $0.contains("#\(others[1]) ") },
                  "the watcher did not report both changes")

        manager.reset()
        let after = try manager.read { [$0.countObjects(ofType: Order.self), $0.countObjects(ofType: OrderItem.self)] }
        context.say("reset(): \(after[0]) orders, \(after[1]) items; the file stays for other processes")
        try check(after == [0, 0] && FileManager.default.fileExists(atPath: manager.fileURL.path), "reset did not empty the store")
    }

    /// The first release's store opened by this one: the model's changes are inferred and applied at
    /// open (a rename, an added attribute with its default, an added entity), every row kept; the first
    /// release then refuses the migrated store.
    private func openVersion1Store(_ context: TourContext) throws {
        let folder = context.folder.appendingPathComponent("store-v1")
        let records = SampleOrders.make(count: 50, seed: 3)
        do {
            let old = try OrdersV1.open(folder: folder)
            try OrdersV1.insert(records, into: old)
        }
        let manager = try OrdersStore.open(folder: folder)
        let (orders, prices, currencies, customers) = try manager.read { storage in
            (storage.countObjects(ofType: Order.self),
             storage.allObjects(ofType: OrderItem.self, sortedBy: [SortDescriptor(\.itemID)]).map(\.unitPrice),
             Set(storage.allObjects(ofType: Order.self).map(\.currency)),
             storage.countObjects(ofType: Customer.self))
        }
        let expected = records.flatMap(\.items).sorted { $0.itemID < $1.itemID }.map(\.price)
        context.say("a version-1 store (\(records.count) orders) opened with version 2: OrderItem.price renamed unitPrice "
                    + "(\(prices.count) prices kept), Order.currency added (\(currencies.sorted().joined(separator: ", ")) for every order), "
                    + "Customer added (\(customers) rows)")
        try check(orders == records.count && prices == expected && currencies == ["USD"] && customers == 0,
                  "the migration lost or changed rows")
        try manager.writeAndWait { storage in
            let customer = storage.insertNewObject(ofType: Customer.self)
            customer.name = "Ada"
            storage.firstObject(ofType: Order.self, matching: nil)?.customer = customer
        }
        do {
            _ = try OrdersV1.open(folder: folder)
            throw TourFailure("the version-1 program opened the migrated store")
        } catch let error as StorageError {
            context.say("the version-1 program opening it again: \(error)")
            guard case .schemaNewerThanProgram = error else { throw error }
        }
    }

    /// Runs `orders watch --status processing --count 2` in a second process, runs `changes` once it is
    /// watching, and returns the lines it printed about them.
    private func watch(_ context: TourContext, folder: URL, changes: () throws -> Void) throws -> [String] {
        try runWatcher(context.program, [Self.childFlag, "watch", "--folder", folder.path, "--status", "processing", "--count", "2",
                                         "--seconds", "60"],
                       log: context.file("watch.txt"), readyPrefix: "watching", change: changes).filter { !$0.hasPrefix("watching") }
    }

    /// Runs `tour --orders-child ARGS` and returns its output; throws on a non-zero exit.
    private func runChild(_ context: TourContext, _ arguments: [String]) throws -> String {
        try runProcess(context.program, [Self.childFlag] + arguments)
    }
}
