import Foundation
import ManagedStorage

/// The entities ManagedStorage's tests, probe and tour use: WooCommerce's order shapes.
@StorageEntity
public final class Order {
    public var orderID: Int64
    public var status: String
    public var dateCreated: Date
    public var total: Double
    public var customerNote: String?
    @Relationship(deleteRule: .cascade)
    public var items: [OrderItem]
    @Relationship(deleteRule: .nullify)
    public var notes: [OrderNote]
    public var customer: Customer?
}

@StorageEntity
public final class OrderItem {
    public var itemID: Int64
    public var name: String
    public var quantity: Int
    public var order: Order?
}

@StorageEntity
public final class OrderNote {
    public var text: String
    public var order: Order?
}

/// A customer cannot be deleted while it has orders (`.deny`).
@StorageEntity
public final class Customer {
    public var name: String
    @Relationship(deleteRule: .deny)
    public var orders: [Order]
    @Relationship(deleteRule: .cascade, inverse: "customer")
    public var profile: CustomerProfile?
}

/// One-to-one with `Customer`.
@StorageEntity
public final class CustomerProfile {
    public var bio: String
    public var customer: Customer?
}

/// One row per name, incremented by processes in the contention tests.
@StorageEntity
public final class Counter {
    public var name: String
    public var value: Int64
}

/// The model of all of them.
public let testModel = StorageModel(entities: [Order.self, OrderItem.self, OrderNote.self, Customer.self,
                                               CustomerProfile.self, Counter.self])
