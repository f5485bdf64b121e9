import Foundation
import ManagedStorage

// The model: every entity the store holds.
let model = StorageModel(entities: [Order.self, OrderItem.self])

// The store is shop-demo/Shop.sqlite; the folder is created when it is missing.
let folder = URL(fileURLWithPath: "shop-demo", isDirectory: true)
let manager = try SQLiteStorageManager(model: model,
                                       configuration: StorageConfiguration(name: "Shop", folder: folder))
print("opened \(manager.storeURL.path)")

// One write operation: one transaction, committed when the closure returns.
let placed = try manager.writeAndWait { storage in
    let order = storage.insertNewObject(ofType: Order.self)
    order.orderID = 1
    order.status = "processing"
    order.dateCreated = Date()
    for (name, price) in [("Mug", 12.0), ("Tea", 8.5)] {
        let item = storage.insertNewObject(ofType: OrderItem.self)
        item.name = name
        item.quantity = 1
        item.price = price
        item.order = order                     // appears in order.items too
    }
    order.total = order.items.reduce(0) { $0 + Double($1.quantity) * $1.price }
    return order.toReadOnly()                  // a Sendable copy: the object stays in the operation
}
print("order #\(placed.orderID): \(placed.items.map(\.name)), total \(placed.total)")
