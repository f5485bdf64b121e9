import Foundation

/// A class whose instances are rows of one table: the role of an `NSManagedObject` subclass.
///
/// Declare entities with the ``StorageEntity(name:originalName:)`` macro rather than conforming by hand:
///
/// ```swift
/// @StorageEntity
/// final class Order {
///     var orderID: Int64
///     var status: String
///     @Relationship(deleteRule: .cascade, inverse: "order")
///     var items: [OrderItem]
/// }
///
/// @StorageEntity
/// final class OrderItem {
///     var name: String
///     var order: Order?
/// }
/// ```
///
/// An entity instance belongs to the ``StorageType`` that fetched or inserted it and is not `Sendable`:
/// send its ``ReadOnlyConvertible/toReadOnly()`` copy across threads instead.
public protocol StorageEntity: AnyObject, SendableMetatype, _ReadOnlyField, ReadOnlyConvertible where ReadOnlyField == StorageObjectID {
    /// The entity's table name (the class name unless `@StorageEntity(name:)` says otherwise).
    static var entityName: String { get }
    /// The table's name in the previous version of the model, when the entity was renamed
    /// (`@StorageEntity(originalName:)`): an inferred migration renames the table, keeping its rows.
    static var originalEntityName: String? { get }
    /// The persisted properties, in declaration order (generated).
    static var _$properties: [StorageProperty<Self>] { get }
    /// The object's state (generated).
    var _$backing: EntityBacking { get }
    /// Makes an object around its state (generated; the store calls it).
    init(_$backing: EntityBacking)
}

extension StorageEntity {
    public static var originalEntityName: String? { nil }

    /// The object's identifier: temporary until it is first saved, then permanent.
    public var objectID: StorageObjectID { _$backing.objectID }
    /// Whether the object was deleted in its storage.
    public var isDeleted: Bool { _$backing.isDeleted }
    /// Whether the object has changes not yet written with `saveIfNeeded()`.
    public var hasChanges: Bool { _$backing.hasChanges }

    public static func _readOnly(_ value: Self) -> StorageObjectID { value._$backing.permanentObjectID() }
}

/// How a property's type appears in a read-only copy: an attribute as itself, a to-one relationship as
/// the object's ``StorageObjectID``, a to-many relationship as the read-only copies of its objects.
public protocol _ReadOnlyField {
    associatedtype ReadOnlyField: Sendable
    static func _readOnly(_ value: Self) -> ReadOnlyField
}

extension Array: _ReadOnlyField where Element: StorageEntity {
/// A to-many relationship's read-only form: the read-only copies of its objects.
    public typealias ReadOnlyField = [Element.ReadOnly]
    public static func _readOnly(_ value: [Element]) -> [Element.ReadOnly] { value.map { $0.toReadOnly() } }
}

/// The read-only form of a property of type `T` (used by generated code).
public typealias _ReadOnlyFieldOf<T: _ReadOnlyField> = T.ReadOnlyField

/// The read-only form of a value (used by generated code).
public func _readOnlyValue<T: _ReadOnlyField>(_ value: T) -> T.ReadOnlyField { T._readOnly(value) }
