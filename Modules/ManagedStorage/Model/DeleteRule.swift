import Foundation

/// What happens to the objects at the other end of a relationship when its object is deleted.
///
/// Declared with `@Relationship` on the relationship of the object being deleted:
///
/// ```swift
/// @StorageEntity
/// final class Customer {
///     var name: String
///     @Relationship(deleteRule: .deny)
///     var orders: [Order]             // a customer with orders cannot be deleted
/// }
/// ```
public enum DeleteRule: Sendable, Equatable {
    /// The related objects stay and stop pointing at the deleted one (the default).
    case nullify
    /// The related objects are deleted too.
    case cascade
    /// The delete fails while any related object exists: the operation reports
    /// ``StorageError/deleteDenied(entity:relationship:)`` and rolls back.
    case deny
}
