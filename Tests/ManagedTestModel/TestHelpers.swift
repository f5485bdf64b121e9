import Foundation
import ManagedStorage

// Helpers ManagedStorage's tests and WooCommerce's examples share.

/// Inserts an order with `items` items (named "<id>-<n>") in `storage`.
@discardableResult
public func insertOrder(_ storage: StorageType, id: Int64, status: String = "processing", total: Double = 10,
                 items: Int = 0, date: Date = Date(timeIntervalSince1970: 1_700_000_000)) -> Order {
    let order = storage.insertNewObject(ofType: Order.self)
    order.orderID = id
    order.status = status
    order.total = total
    order.dateCreated = date.addingTimeInterval(Double(id))
    for n in 0..<items {
        let item = storage.insertNewObject(ofType: OrderItem.self)
        item.itemID = id * 100 + Int64(n)
        item.name = "\(id)-\(n)"
        item.quantity = n + 1
        item.order = order
    }
    return order
}

/// Waits (yielding the main actor) until `controller` handled every change `manager` published so far.
@MainActor
public func settle(_ controller: ResultsController<Order>, _ manager: SQLiteStorageManager,
            timeout: Duration = .seconds(30)) async -> Bool {
    let target = manager.publishedChangeSequence
    let deadline = ContinuousClock.now + timeout
    while controller.handledChangeSequence < target {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}
