import Foundation
import GRDB

/// Every entity of a model with its table layout and relationships resolved.
final class ResolvedModel: Sendable {
    let entities: [EntitySchema]
    let byName: [String: EntitySchema]

    /// The model of `types`. `placedAs` maps an entity's declared name to the table (and its
    /// property names to the columns) it is stored in, when these differ: a custom migration stage's
    /// old model, whose tables and columns the stage's new model renamed. Lookups (``byName``) stay
    /// by declared name.
    init(_ types: [any StorageEntity.Type], placedAs placement: [String: TablePlacement] = [:]) throws(StorageError) {
        var schemas: [EntitySchema] = []
        var byName: [String: EntitySchema] = [:]
        for type in types {
            let schema = EntitySchema(type, placement: placement[type.entityName])
            guard byName[type.entityName] == nil else { throw .model("the entity \(type.entityName) is listed twice") }
            let lowered = schema.name.lowercased()
            guard !lowered.hasPrefix("sqlite_"), !lowered.hasPrefix("grdb_"), !lowered.hasPrefix(SchemaHistory.reservedPrefix) else {
                throw .model("the entity name \(schema.name) is reserved for the store's own tables")
            }
            for property in schema.properties {
                if case .attribute(let info) = property.kind, info.lacksDefault {
                    throw .model("\(schema.name).\(property.name): \(info.typeName) has no value a new object can start with "
                                 + "(no case for its raw type's default, and it is not CaseIterable): make it CaseIterable, "
                                 + "add that case, or declare the property's default")
                }
            }
            schemas.append(schema)
            byName[type.entityName] = schema
        }
        try Self.link(schemas, byName: byName)
        self.entities = schemas
        self.byName = byName
    }

    /// Breaks the links between the schemas (a relationship's `target`, `incoming`), which are strong
    /// both ways: without this, every model with a relationship and its inverse would outlive its store.
    /// A schema still held by an object of the store then has no targets, and its context is gone too.
    deinit { Self.unlink(entities) }

    /// Points every relationship at its target schema and inverse, and fills in `incoming`; if one does
    /// not fit, unlinks what it linked (those schemas would otherwise keep each other alive) and throws.
    static func link(_ schemas: [EntitySchema], byName: [String: EntitySchema]) throws(StorageError) {
        do { try linkAll(schemas, byName: byName) } catch {
            unlink(schemas)
            throw error
        }
    }

    private static func linkAll(_ schemas: [EntitySchema], byName: [String: EntitySchema]) throws(StorageError) {
        for schema in schemas {
            for (index, property) in schema.properties.enumerated() {
                guard let relation = property.relationship else { continue }
                guard let target = byName[relation.targetName] else {
                    throw .model("\(schema.name).\(property.name) points at \(relation.targetName), which is not in the model")
                }
                let inverse = try Self.inverse(of: property, in: schema, index: index, target: target)
                schema.properties[index].inverse = inverse
                schema.properties[index].target = target
                if case .toMany = property.kind {
                    guard let inverse else {
                        throw .model("\(schema.name).\(property.name) is to-many and needs an inverse to-one relationship in \(target.name)")
                    }
                    guard case .toOne = target.properties[inverse].kind else {
                        throw .model("\(schema.name).\(property.name) and \(target.name).\(target.properties[inverse].name) are both to-many: many-to-many relationships are not supported; add an entity in between")
                    }
                }
            }
        }
        for schema in schemas {
            for (index, property) in schema.properties.enumerated() {
                guard case .toOne = property.kind, let target = property.target else { continue }
                target.incoming.append(IncomingReference(entity: schema, property: index))
            }
        }
    }

    private static func unlink(_ schemas: [EntitySchema]) {
        for schema in schemas {
            schema.incoming = []
            for index in schema.properties.indices { schema.properties[index].target = nil }
        }
    }

    /// The index of `property`'s inverse in `target`: the one named, or the only relationship of
    /// `target` that points back.
    private static func inverse(of property: PropertySchema, in schema: EntitySchema, index: Int,
                                target: EntitySchema) throws(StorageError) -> Int? {
        guard let relation = property.relationship else { return nil }
        if let keyPath = relation.inverse {
            guard let found = target.keyPathIndex[keyPath],
                  let back = target.properties[found].relationship, back.targetName == schema.name else {
                throw .model("the inverse of \(schema.name).\(property.name) must be a relationship of \(target.name) that points at \(schema.name)")
            }
            if let declared = back.inverse, schema.keyPathIndex[declared] != index {
                throw .model("\(schema.name).\(property.name) and \(target.name).\(target.properties[found].name) name different inverses")
            }
            return found
        }
        let candidates = target.properties.indices.filter { candidate in
            guard let back = target.properties[candidate].relationship, back.targetName == schema.name else { return false }
            if target === schema && candidate == index { return false }
            if let declared = back.inverse { return schema.keyPathIndex[declared] == index }
            return true
        }
        if candidates.count > 1 {
            let names = candidates.map { target.properties[$0].name }.joined(separator: ", ")
            throw .model("\(schema.name).\(property.name) could have any of \(target.name).{\(names)} as its inverse; name it with @Relationship(inverse:)")
        }
        return candidates.first
    }
}

/// A to-one relationship of some entity that can point at objects of another.
struct IncomingReference {
    let entity: EntitySchema
    let property: Int
}

/// Where an entity's rows are when its table or columns are not named as it declares them.
struct TablePlacement {
    var table: String
    /// Property name to column name, for the renamed ones.
    var columns: [String: String]
}

/// The table designs of a model's entities, in order.
extension ResolvedModel {
    var designs: [TableDesign] { entities.map(\.design) }
}
