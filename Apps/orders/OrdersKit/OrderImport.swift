import Foundation
import ManagedStorage

/// Imports orders into the store: existing order numbers are updated (their items replaced), new
/// ones inserted, in transactions of `batchSize` orders.
public enum OrderImport {
    public struct Summary: Sendable, Equatable {
        public var inserted = 0
        public var updated = 0
    }

    /// Imports `records`, calling `progress(done, total)` after each batch.
    public static func run(_ records: [OrderRecord], into manager: SQLiteStorageManager, batchSize: Int = 1000,
                           progress: (Int, Int) -> Void = { _, _ in }) throws -> Summary {
        var summary = Summary()
        var done = 0
        for start in stride(from: 0, to: records.count, by: max(1, batchSize)) {
            let batch = Array(records[start..<min(start + batchSize, records.count)])
            let result = try manager.writeAndWait { storage -> Summary in
                let ids = batch.map(\.orderID)
                var existing: [Int64: Order] = [:]
                for order in storage.allObjects(ofType: Order.self, matching: #Predicate { ids.contains($0.orderID) }) {
                    existing[order.orderID] = order
                }
                var counts = Summary()
                for record in batch {
                    let order: Order
                    if let found = existing[record.orderID] {
                        order = found
                        for item in found.items { storage.deleteObject(item) }
                        counts.updated += 1
                    } else {
                        order = storage.insertNewObject(ofType: Order.self)
                        order.orderID = record.orderID
                        counts.inserted += 1
                    }
                    order.status = record.status
                    order.dateCreated = record.dateCreated
                    order.total = record.total
                    order.customerNote = record.customerNote
                    for itemRecord in record.items {
                        let item = storage.insertNewObject(ofType: OrderItem.self)
                        item.itemID = itemRecord.itemID
                        item.name = itemRecord.name
                        item.quantity = itemRecord.quantity
                        item.unitPrice = itemRecord.price
                        item.order = order
                    }
                }
                return counts
            }
            summary.inserted += result.inserted
            summary.updated += result.updated
            done += batch.count
            progress(done, records.count)
        }
        return summary
    }
}
