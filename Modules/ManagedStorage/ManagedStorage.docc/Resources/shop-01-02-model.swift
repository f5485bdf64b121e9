import Foundation
import ManagedStorage

/// An order: one row of the `Order` table, one column per stored property.
@StorageEntity
final class Order {
    var orderID: Int64
    var status: String
    var dateCreated: Date
    var total: Double
    var customerNote: String?          // optional: a column that may be NULL
    /// To-many: the items whose `order` is this one. Deleting the order deletes them.
    @Relationship(deleteRule: .cascade)
    var items: [OrderItem]
}

/// One line of an order.
@StorageEntity
final class OrderItem {
    var name: String
    var quantity: Int
    var price: Double
    /// To-one: a column holding the order's row; the inverse of `Order.items`.
    var order: Order?
}
