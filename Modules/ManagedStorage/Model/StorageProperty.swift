import Foundation

/// One persisted property of an entity, as the ``StorageEntity(name:originalName:)`` macro declares it.
///
/// Generated code builds these with ``property(_:_:originalName:default:)`` and its overloads; the overload the compiler picks
/// tells an attribute (a ``StorageAttribute`` value), a to-one relationship (an optional entity) and a
/// to-many relationship (an array of entities) apart. For
///
/// ```swift
/// @StorageEntity
/// final class Customer {
///     var name: String
///     @Relationship(deleteRule: .deny)
///     var orders: [Order]
/// }
/// ```
///
/// the macro writes:
///
/// ```swift
/// static var _$properties: [StorageProperty<Customer>] {
///     [
///         .property("name", \Customer.name),
///         .property("orders", \Customer.orders, deleteRule: .deny),
///     ]
/// }
/// ```
public struct StorageProperty<Entity: StorageEntity> {
    let name: String
    let keyPath: PartialKeyPath<Entity>
    let kind: PropertyKind
    /// The name the property had in the previous version of the model (`@Attribute(originalName:)`,
    /// `@Relationship(originalName:)`): an inferred migration renames its column instead of dropping
    /// it and adding a new one.
    let originalName: String?

    /// An attribute: one column holding a ``StorageAttribute`` value.
    ///
    /// - Parameters:
    ///   - name: The property's name, which is the column's.
    ///   - keyPath: The property.
    ///   - originalName: The column's name in the previous model version, when the property was renamed.
    ///   - defaultValue: The value of a new object, and of existing rows when a migration adds the
    ///     column (`@Attribute(default:)`); without it a new object starts at the type's default, and
    ///     a migration cannot add the column if it is not optional.
    public static func property<V: StorageAttribute>(_ name: String, _ keyPath: ReferenceWritableKeyPath<Entity, V>,
                                                     originalName: String? = nil, default defaultValue: V? = nil) -> Self {
        Self(name: name, keyPath: keyPath, kind: .attribute(AttributeInfo(V.self, declaredDefault: defaultValue)),
             originalName: originalName)
    }

    /// A to-one relationship: a column holding the related object's row.
    public static func property<T: StorageEntity>(_ name: String, _ keyPath: ReferenceWritableKeyPath<Entity, T?>,
                                                  deleteRule: DeleteRule = .nullify,
                                                  inverse: PartialKeyPath<T>? = nil, originalName: String? = nil) -> Self {
        Self(name: name, keyPath: keyPath,
             kind: .toOne(RelationshipInfo(target: T.self, targetName: T.entityName, inverse: inverse, deleteRule: deleteRule)),
             originalName: originalName)
    }

    /// A to-many relationship: the objects whose inverse to-one relationship points at this one.
    public static func property<T: StorageEntity>(_ name: String, _ keyPath: ReferenceWritableKeyPath<Entity, [T]>,
                                                  deleteRule: DeleteRule = .nullify,
                                                  inverse: PartialKeyPath<T>? = nil, originalName: String? = nil) -> Self {
        Self(name: name, keyPath: keyPath,
             kind: .toMany(RelationshipInfo(target: T.self, targetName: T.entityName, inverse: inverse, deleteRule: deleteRule)),
             originalName: originalName)
    }
}

enum PropertyKind {
    case attribute(AttributeInfo)
    case toOne(RelationshipInfo)
    case toMany(RelationshipInfo)
}

/// An attribute's column, with its type's conversions erased.
// @unchecked Sendable: immutable; `accepts` and `describe` capture only the attribute's type and keep no state (`valueRule` is never `.decoder`)
struct AttributeInfo: @unchecked Sendable {
    let columnType: StorageColumnType
    let isOptional: Bool
    /// The value of a new object: the declared default, or the type's.
    let defaultValue: StorageValue
    /// The default declared with `@Attribute(default:)`: the column's SQL `DEFAULT`, and what a
    /// migration fills existing rows with.
    let declaredDefault: StorageValue?
    /// The type has no default value and the property declares none (the model refuses it).
    let lacksDefault: Bool
    let typeName: String
    /// The type's full name, and a `CaseIterable` type's cases as stored: a migration that finds
    /// another one recorded for the column checks its values (``AttributeValueCheck``).
    let typeIdentity: String
    /// Whether a stored value decodes as the property's type.
    let accepts: (StorageValue) -> Bool
    /// The kind of stored value the type decodes from, when that alone decides (`nil`: ask ``accepts``).
    let valueRule: ColumnCheck.Rule?
    /// The stored value as the property's type would print it (a results section's name); `""` for `nil`.
    let describe: (StorageValue) -> String

    init<V: StorageAttribute>(_ type: V.Type, declaredDefault: V? = nil) {
        columnType = V.columnType
        isOptional = V.isOptional
        self.declaredDefault = declaredDefault?.storageValue
        if let declared = declaredDefault?.storageValue ?? V.storageDefaultIfAny?.storageValue {
            defaultValue = declared
            lacksDefault = false
        } else {
            defaultValue = .null
            lacksDefault = true
        }
        typeName = String(describing: V.self)
        typeIdentity = Self.identity(of: V.self)
        accepts = { V.decode($0) != nil }
        valueRule = Self.valueRule(of: V.self)
        describe = { value in
            guard let decoded = V.decode(value) else { return "" }
            let mirror = Mirror(reflecting: decoded)
            if mirror.displayStyle == .optional {
                return mirror.children.first.map { String(describing: $0.value) } ?? ""
            }
            return String(describing: decoded)
        }
    }

    private static func identity<V: StorageAttribute>(of type: V.Type) -> String {
        let name = String(describing: V.self)
        guard let iterable = V.self as? any CaseIterable.Type else { return name }
        let values = everyCase(of: iterable).compactMap { ($0 as? V)?.storageValue }
        return "\(name) [\(values.map { "\($0)" }.joined(separator: ", "))]"
    }

    /// The built-in types whose decoder accepts exactly the values of one kind (and `NULL` when optional):
    /// see their `decode(_:)` in `StorageAttribute.swift`.
    private static func valueRule<V: StorageAttribute>(of type: V.Type) -> ColumnCheck.Rule? {
        switch type {
        case is String.Type, is String?.Type: .text
        case is Double.Type, is Double?.Type, is Float.Type, is Float?.Type, is Date.Type, is Date?.Type: .number
        case is Int64.Type, is Int64?.Type, is Bool.Type, is Bool?.Type: .integer
        case is Int.Type, is Int?.Type: Int.bitWidth == 64 ? .integer : nil
        case is Data.Type, is Data?.Type: .bytes
        default: nil
        }
    }
}

/// A relationship as declared: its target, its inverse if named, and its delete rule.
// @unchecked Sendable: immutable; its only non-`Sendable` fields are a metatype and the inverse's key path, neither of which holds state
struct RelationshipInfo: @unchecked Sendable {
    let target: any StorageEntity.Type
    let targetName: String
    let inverse: AnyKeyPath?
    let deleteRule: DeleteRule
}

private func everyCase<C: CaseIterable>(of type: C.Type) -> [Any] { C.allCases.map { $0 } }
