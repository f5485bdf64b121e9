import Foundation
import ManagedStorage

/// An order, as WooCommerce's `Storage.Order` keeps it (a few of its attributes).
@StorageEntity
public final class Order {
    public var orderID: Int64
    public var status: String
    public var dateCreated: Date
    public var total: Double
    public var customerNote: String?
    @Relationship(deleteRule: .cascade)
    public var items: [OrderItem]
}

/// One line of an order.
@StorageEntity
public final class OrderItem {
    public var itemID: Int64
    public var name: String
    public var quantity: Int
    public var price: Double
    public var order: Order?
}

/// The orders store: one file, `Orders.sqlite`.
public enum OrdersStore {
    public static let model = StorageModel(entities: [Order.self, OrderItem.self])

    /// Opens the store in `folder`.
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
