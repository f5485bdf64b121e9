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
}
