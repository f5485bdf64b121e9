import Foundation
import ManagedStorage

/// The orders model as the first release shipped it, kept to show (and test) what opening such a
/// store with the current model does. Its classes name the tables they had.
public enum OrdersV1 {
    @StorageEntity(name: "Order")
    public final class Order {
        public var orderID: Int64
        public var status: String
        public var dateCreated: Date
        public var total: Double
        public var customerNote: String?
        @Relationship(deleteRule: .cascade)
        public var items: [OrderItem]
    }

    @StorageEntity(name: "OrderItem")
    public final class OrderItem {
        public var itemID: Int64
        public var name: String
        public var quantity: Int
        public var price: Double
        public var order: Order?
    }

    public static let model = StorageModel(entities: [Order.self, OrderItem.self])

    /// Opens (or creates) a version-1 store in `folder`, as the first release did.
    public static func open(folder: URL) throws -> SQLiteStorageManager {
        try SQLiteStorageManager(model: model, configuration: StorageConfiguration(name: "Orders", folder: folder))
    }

    /// Writes `records` the way the first release's import did.
    public static func insert(_ records: [OrderRecord], into manager: SQLiteStorageManager) throws {
        try manager.writeAndWait { storage in
            for record in records {
                let order = storage.insertNewObject(ofType: Order.self)
                order.orderID = record.orderID
                order.status = record.status
                order.dateCreated = record.dateCreated
                order.total = record.total
                order.customerNote = record.customerNote
                for itemRecord in record.items {
                    let item = storage.insertNewObject(ofType: OrderItem.self)
                    item.itemID = itemRecord.itemID
                    item.name = itemRecord.name
                    item.quantity = itemRecord.quantity
                    item.price = itemRecord.price
                    item.order = order
                }
            }
        }
    }
}
