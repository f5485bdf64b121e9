import Foundation

/// What happens to the objects at the other end of a relationship when its object is deleted.
public enum DeleteRule: Sendable, Equatable {
    /// The related objects stay and stop pointing at the deleted one (the default).
    case nullify
    /// The related objects are deleted too.
    case cascade
    /// The delete fails while any related object exists: the operation reports
    /// ``StorageError/deleteDenied(entity:relationship:)`` and rolls back.
    case deny
}

/// One persisted property of an entity, as the ``StorageEntity()`` macro declares it.
///
/// Generated code builds these with ``property(_:_:)`` and its overloads; the overload the compiler picks
/// tells an attribute (a ``StorageAttribute`` value), a to-one relationship (an optional entity) and a
/// to-many relationship (an array of entities) apart.
public struct StorageProperty<Entity: StorageEntity> {
    let name: String
    let keyPath: PartialKeyPath<Entity>
    let kind: PropertyKind

    /// An attribute: one column holding a ``StorageAttribute`` value.
    public static func property<V: StorageAttribute>(_ name: String, _ keyPath: ReferenceWritableKeyPath<Entity, V>) -> Self {
        Self(name: name, keyPath: keyPath, kind: .attribute(AttributeInfo(V.self)))
    }

    /// A to-one relationship: a column holding the related object's row.
    public static func property<T: StorageEntity>(_ name: String, _ keyPath: ReferenceWritableKeyPath<Entity, T?>,
                                                  deleteRule: DeleteRule = .nullify,
                                                  inverse: PartialKeyPath<T>? = nil) -> Self {
        Self(name: name, keyPath: keyPath,
             kind: .toOne(RelationshipInfo(target: T.self, targetName: T.entityName, inverse: inverse, deleteRule: deleteRule)))
    }

    /// A to-many relationship: the objects whose inverse to-one relationship points at this one.
    public static func property<T: StorageEntity>(_ name: String, _ keyPath: ReferenceWritableKeyPath<Entity, [T]>,
                                                  deleteRule: DeleteRule = .nullify,
                                                  inverse: PartialKeyPath<T>? = nil) -> Self {
        Self(name: name, keyPath: keyPath,
             kind: .toMany(RelationshipInfo(target: T.self, targetName: T.entityName, inverse: inverse, deleteRule: deleteRule)))
    }
}

enum PropertyKind {
    case attribute(AttributeInfo)
    case toOne(RelationshipInfo)
    case toMany(RelationshipInfo)
}

/// An attribute's column, with its type's conversions erased.
struct AttributeInfo: @unchecked Sendable {
    let columnType: StorageColumnType
    let isOptional: Bool
    let defaultValue: StorageValue
    let typeName: String
    /// Whether a stored value decodes as the property's type.
    let accepts: (StorageValue) -> Bool
    /// The stored value as the property's type would print it (a results section's name); `""` for `nil`.
    let describe: (StorageValue) -> String

    init<V: StorageAttribute>(_ type: V.Type) {
        columnType = V.columnType
        isOptional = V.isOptional
        defaultValue = V.storageDefault.storageValue
        typeName = String(describing: V.self)
        accepts = { V.decode($0) != nil }
        describe = { value in
            guard let decoded = V.decode(value) else { return "" }
            let mirror = Mirror(reflecting: decoded)
            if mirror.displayStyle == .optional {
                return mirror.children.first.map { String(describing: $0.value) } ?? ""
            }
            return String(describing: decoded)
        }
    }
}

/// A relationship as declared: its target, its inverse if named, and its delete rule.
struct RelationshipInfo: @unchecked Sendable {
    let target: any StorageEntity.Type
    let targetName: String
    let inverse: AnyKeyPath?
    let deleteRule: DeleteRule
}
