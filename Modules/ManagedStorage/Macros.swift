/// Makes a final class an entity: its stored `var`s become columns of a table named after the class,
/// with change tracking, a `Sendable` read-only copy (`ReadOnly`, from `toReadOnly()`), and an
/// unavailable `Sendable` conformance so an object cannot leave its storage.
///
/// ```swift
/// @StorageEntity
/// final class Order {
///     var orderID: Int64
///     var status: String
///     var dateCreated: Date
///     @Relationship(deleteRule: .cascade)
///     var items: [OrderItem]
/// }
///
/// @StorageEntity
/// final class OrderItem {
///     var name: String
///     var quantity: Int
///     var order: Order?
/// }
/// ```
///
/// Property types: any ``StorageAttribute`` (optional or not) for a column; an optional entity for a
/// to-one relationship; an array of entities for a to-many relationship (the inverse to-one must exist).
/// Properties have no initial value (a new object starts at each type's default; set them after
/// `insertNewObject`, as with `@NSManaged`). Mark a property that is not stored with `@Transient` (it
/// then needs an initial value).
///
/// - Parameter name: The table's name; the class's name when omitted.
@attached(member, names: named(_$backing), named(init(_$backing:)), named(entityName), named(_$properties),
          named(ReadOnly), named(toReadOnly), named(ReadOnlyField))
@attached(memberAttribute)
@attached(extension, conformances: StorageEntity, Sendable)
public macro StorageEntity(name: String? = nil) = #externalMacro(module: "ManagedStorageMacros", type: "StorageEntityMacro")

/// Declares a relationship's delete rule and, when it cannot be inferred, its inverse.
///
/// Without `inverse:`, the inverse is the one relationship of the other entity that points back; name
/// it when there are several: `@Relationship(inverse: "customer")`. The name is checked at compile
/// time (the macro writes it as the key path `\Target.customer`). The default delete rule is `.nullify`.
@attached(peer)
public macro Relationship(deleteRule: DeleteRule = .nullify, inverse: StaticString? = nil) =
    #externalMacro(module: "ManagedStorageMacros", type: "StorageMarkerMacro")

/// Keeps a property out of the table: it lives only in the object (and needs an initial value).
@attached(peer)
public macro Transient() = #externalMacro(module: "ManagedStorageMacros", type: "StorageMarkerMacro")

/// The accessors of a stored property (added by `@StorageEntity`).
@attached(accessor, names: named(get), named(set))
public macro _StorageProperty(_ index: Int) = #externalMacro(module: "ManagedStorageMacros", type: "StoragePropertyMacro")
