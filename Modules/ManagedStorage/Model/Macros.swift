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
/// - Parameters:
///   - name: The table's name; the class's name when omitted.
///   - originalName: The table's name in the previous version of the model, when the entity was
///     renamed: the store's migration renames the table and keeps its rows (see
///     ``StorageSchemaVersion``).
@attached(member, names: named(_$backing), named(init(_$backing:)), named(entityName), named(_$properties),
          named(ReadOnly), named(toReadOnly), named(ReadOnlyField), named(originalEntityName))
@attached(memberAttribute)
@attached(extension, conformances: StorageEntity, Sendable)
public macro StorageEntity(name: String? = nil, originalName: String? = nil) =
    #externalMacro(module: "ManagedStorageMacros", type: "StorageEntityMacro")

/// Says how an attribute changed since the previous version of the model.
///
/// ```swift
/// @StorageEntity
/// final class Order {
///     @Attribute(originalName: "note")
///     var customerNote: String?        // the "note" column, renamed: its values are kept
/// }
/// ```
///
/// - Parameter originalName: The attribute's name in the previous version: the migration renames the
///   column instead of dropping it and adding an empty one.
@attached(peer)
public macro Attribute(originalName: String? = nil) =
    #externalMacro(module: "ManagedStorageMacros", type: "StorageMarkerMacro")

/// Gives an attribute a default value, and optionally the name it had in the previous model version.
///
/// ```swift
/// @StorageEntity
/// final class Order {
///     @Attribute(default: 1)
///     var priority: Int                // added in version 2: every existing order gets 1
/// }
/// ```
///
/// The default is a new object's value, the column's SQL `DEFAULT`, and what the migration that adds
/// the column writes in every existing row. A non-optional attribute added without a default cannot
/// be migrated (``StorageError/migrationNeedsDefault(entity:attribute:)``), as in Core Data.
///
/// - Parameters:
///   - originalName: The attribute's name in the previous version, when it was renamed.
///   - default: The value, of the property's type (write `OrderStatus.pending`, not `.pending`).
@attached(peer)
public macro Attribute<Value>(originalName: String? = nil, default: Value) =
    #externalMacro(module: "ManagedStorageMacros", type: "StorageMarkerMacro")

/// Declares a relationship's delete rule and, when it cannot be inferred, its inverse.
///
/// Without `inverse:`, the inverse is the one relationship of the other entity that points back; name
/// it when there are several: `@Relationship(inverse: "customer")`. The name is checked at compile
/// time (the macro writes it as the key path `\Target.customer`). The default delete rule is `.nullify`.
/// `originalName:` is a to-one relationship's name in the previous model version, when it was renamed:
/// the migration renames its column and keeps the links.
@attached(peer)
public macro Relationship(deleteRule: DeleteRule = .nullify, inverse: StaticString? = nil, originalName: String? = nil) =
    #externalMacro(module: "ManagedStorageMacros", type: "StorageMarkerMacro")

/// Keeps a property out of the table: it lives only in the object (and needs an initial value).
@attached(peer)
public macro Transient() = #externalMacro(module: "ManagedStorageMacros", type: "StorageMarkerMacro")

/// The accessors of a stored property (added by `@StorageEntity`).
@attached(accessor, names: named(get), named(set))
public macro _StorageProperty(_ index: Int) = #externalMacro(module: "ManagedStorageMacros", type: "StoragePropertyMacro")
