import Foundation

/// A type with a `Sendable` copy to hand out of a storage operation, as WooCommerce's `ReadOnlyConvertible`.
///
/// Every ``StorageEntity`` conforms (the macro generates `ReadOnly` and ``toReadOnly()``):
///
/// ```swift
/// let orders: [Order.ReadOnly] = try await manager.write { storage in
///     storage.allObjects(ofType: Order.self).map { $0.toReadOnly() }
/// }
/// print(orders.map(\.orderID))
/// ```
public protocol ReadOnlyConvertible {
    /// The `Sendable` copy's type.
    associatedtype ReadOnly: Sendable
    /// A copy of the object's values that may cross threads.
    func toReadOnly() -> ReadOnly
}
