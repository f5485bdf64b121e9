import Foundation

/// A type with a `Sendable` copy to hand out of a storage operation, as WooCommerce's `ReadOnlyConvertible`.
public protocol ReadOnlyConvertible {
    /// The `Sendable` copy's type.
    associatedtype ReadOnly: Sendable
    /// A copy of the object's values that may cross threads.
    func toReadOnly() -> ReadOnly
}
