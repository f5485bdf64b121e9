import Foundation
import ManagedStorage

// The model: every entity the store holds.
let model = StorageModel(entities: [Order.self, OrderItem.self])

// The store is shop-demo/Shop.sqlite; the folder is created when it is missing.
let folder = URL(fileURLWithPath: "shop-demo", isDirectory: true)
let manager = try SQLiteStorageManager(model: model,
                                       configuration: StorageConfiguration(name: "Shop", folder: folder))
print("opened \(manager.storeURL.path)")

/// Writes order `orderID` with `items` (name, quantity, price): inserts it, or replaces the items of
/// the order already stored under that number.
func place(_ orderID: Int64, status: String, items: [(String, Int, Double)]) throws -> Order.ReadOnly {
    try manager.writeAndWait { storage in
        let existing = storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == orderID })
        let order = existing ?? storage.insertNewObject(ofType: Order.self)
        if existing == nil {
            order.orderID = orderID
            order.dateCreated = Date()
        }
        order.status = status
        for old in order.items {
            storage.deleteObject(old)
        }
        for (name, quantity, price) in items {
            let item = storage.insertNewObject(ofType: OrderItem.self)
            item.name = name
            item.quantity = quantity
            item.price = price
            item.order = order
        }
        order.total = items.reduce(0) { $0 + Double($1.1) * $1.2 }
        return order.toReadOnly()
    }
}

_ = try place(1, status: "processing", items: [("Mug", 1, 12), ("Tea", 1, 8.5)])
_ = try place(2, status: "processing", items: [("Kettle", 1, 35)])
let third = try place(3, status: "completed", items: [("Tea", 4, 8.5)])
print("order #\(third.orderID): \(third.items.map(\.name)), total \(third.total)")

// Read on the main actor: viewStorage never writes, and each fetch sees the last commit.
let processing = manager.viewStorage.allObjects(ofType: Order.self,
                                                matching: #Predicate { $0.status == "processing" },
                                                sortedBy: [SortDescriptor(\.total, order: .reverse)])
print("processing, largest first: \(processing.map { "#\($0.orderID) \($0.total)" })")
