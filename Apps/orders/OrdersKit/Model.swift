import Foundation
import ManagedStorage

// The model's second version. Against the first (`OrdersV1`), it renames `OrderItem.price` to
// `unitPrice`, adds `Order.currency` (every existing order gets "USD"), and adds `Customer` with its
// orders. Nothing else is written for it: opening a version-1 store migrates it (see `OrdersStore`).

/// An order, as WooCommerce's `Storage.Order` keeps it (a few of its attributes).
@StorageEntity
public final class Order {
    public var orderID: Int64
    public var status: String
    public var dateCreated: Date
    public var total: Double
    public var customerNote: String?
    /// Added in version 2.
    @Attribute(default: "USD")
    public var currency: String
    @Relationship(deleteRule: .cascade)
    public var items: [OrderItem]
    /// Added in version 2.
    public var customer: Customer?
}

/// One line of an order.
@StorageEntity
public final class OrderItem {
    public var itemID: Int64
    public var name: String
    public var quantity: Int
    /// `price` in version 1: renamed, its values kept.
    @Attribute(originalName: "price")
    public var unitPrice: Double
    public var order: Order?
}

/// Who placed orders (added in version 2).
@StorageEntity
public final class Customer {
    public var name: String
    public var email: String?
    @Relationship(deleteRule: .nullify)
    public var orders: [Order]
}

/// The orders store: one file, `Orders.sqlite`.
public enum OrdersStore {
    /// The current model. `2-customers` marks the second release: a version-1 program refuses a store
    /// this one migrated, instead of reading it as its own.
    public static let model = StorageModel(entities: [Order.self, OrderItem.self, Customer.self],
                                           versions: [.inferred("2-customers")])

    /// Opens the store in `folder`, migrating a version-1 store.
    public static func open(folder: URL) throws -> SQLiteStorageManager {
        try SQLiteStorageManager(model: model, configuration: StorageConfiguration(name: "Orders", folder: folder))
    }
}

/// An order in the JSON that `orders generate` writes and `orders import` reads.
public struct OrderRecord: Codable, Sendable, Equatable {
    public var orderID: Int64
    public var status: String
    public var dateCreated: Date
    public var total: Double
    public var customerNote: String?
    public var items: [ItemRecord]

    public struct ItemRecord: Codable, Sendable, Equatable {
        public var itemID: Int64
        public var name: String
        public var quantity: Int
        public var price: Double
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }
}
