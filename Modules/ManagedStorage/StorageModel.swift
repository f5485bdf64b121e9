import Foundation
import GRDB

/// The entities a store holds and the schema versions it went through.
///
/// The entities' declarations are the current schema. A new store is created from them directly, and
/// every listed version counts as applied. An existing store runs, in order, the versions it has not
/// applied yet, all of them as one unit; afterwards its tables must have every declared column.
///
/// ```swift
/// let model = StorageModel(entities: [Order.self, OrderItem.self], versions: [
///     StorageSchemaVersion("2-order-note") { db in
///         try db.execute(sql: #"ALTER TABLE "Order" ADD COLUMN "note" TEXT"#)
///     },
/// ])
/// ```
public struct StorageModel: Sendable {
    /// The entity types, in the order given.
    public let entities: [any StorageEntity.Type]
    /// The schema versions after the first, oldest first.
    public let versions: [StorageSchemaVersion]

    /// A model of `entities` with the migrations `versions` (none for a first release).
    public init(entities: [any StorageEntity.Type], versions: [StorageSchemaVersion] = []) {
        self.entities = entities
        self.versions = versions
    }

    /// The entities with their relationships resolved, or the typed error that says what does not fit.
    func resolve() throws(StorageError) -> ResolvedModel {
        try ResolvedModel(entities)
    }
}

/// One migration: an identifier recorded in the store once applied, and the change it makes.
///
/// The closure runs inside the unit of all pending migrations; if it throws, the store is restored to
/// exactly what it was before the first of them and the error reaches the caller as
/// ``StorageError/migrationFailed(version:underlying:)``.
public struct StorageSchemaVersion: Sendable {
    /// The identifier recorded in the store (GRDB's `grdb_migrations` table).
    public let identifier: String
    let migrate: @Sendable (Database) throws -> Void

    /// A version named `identifier` whose change is `migrate`.
    public init(_ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void) {
        self.identifier = identifier
        self.migrate = migrate
    }
}

/// Every entity of a model with its table layout and relationships resolved.
final class ResolvedModel: @unchecked Sendable {
    let entities: [EntitySchema]
    let byName: [String: EntitySchema]

    init(_ types: [any StorageEntity.Type]) throws(StorageError) {
        var schemas: [EntitySchema] = []
        var byName: [String: EntitySchema] = [:]
        for type in types {
            let schema = EntitySchema(type)
            guard byName[schema.name] == nil else { throw .model("the entity \(schema.name) is listed twice") }
            let lowered = schema.name.lowercased()
            guard !lowered.hasPrefix("sqlite_"), !lowered.hasPrefix("grdb_") else {
                throw .model("the entity name \(schema.name) is reserved for the store's own tables")
            }
            schemas.append(schema)
            byName[schema.name] = schema
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

/// One property's place in the table and, for relationships, its resolved other end.
struct PropertySchema {
    let name: String
    let kind: PropertyKind
    /// The inverse property's index in ``target``.
    var inverse: Int?
    var target: EntitySchema?

    var relationship: RelationshipInfo? {
        switch kind {
        case .attribute: nil
        case .toOne(let info), .toMany(let info): info
        }
    }

    /// Whether the property is a column (attributes and to-one relationships; to-many ones are not).
    var isColumn: Bool {
        if case .toMany = kind { return false }
        return true
    }

    var deleteRule: DeleteRule { relationship?.deleteRule ?? .nullify }
}

/// An entity's table: its columns in property order, and how to make its objects.
final class EntitySchema: @unchecked Sendable {
    let name: String
    var properties: [PropertySchema]
    let keyPathIndex: [AnyKeyPath: Int]
    let make: (EntityBacking) -> AnyObject
    /// The to-one relationships (of any entity) that point at this one, filled in by the model.
    var incoming: [IncomingReference] = []
    /// Indexes of the properties stored as columns, in order.
    let columns: [Int]
    /// Indexes of the to-one relationships.
    let toOneIndexes: [Int]
    /// `INSERT INTO "T" ("a", "b") VALUES (?, ?)`.
    let insertSQL: String
    let quotedName: String

    init<T: StorageEntity>(_ type: T.Type) {
        name = T.entityName
        let quoted = SQL.quote(T.entityName)
        quotedName = quoted
        let declared = T._$properties
        let properties = declared.map { PropertySchema(name: $0.name, kind: $0.kind, inverse: nil, target: nil) }
        self.properties = properties
        var keyPaths: [AnyKeyPath: Int] = [:]
        for (index, property) in declared.enumerated() { keyPaths[property.keyPath] = index }
        keyPathIndex = keyPaths
        make = { T(_$backing: $0) }
        let columns = properties.indices.filter { properties[$0].isColumn }
        self.columns = columns
        toOneIndexes = columns.filter { if case .toOne = declared[$0].kind { true } else { false } }
        let names = columns.map { SQL.quote(declared[$0].name) }
        insertSQL = names.isEmpty ? "INSERT INTO \(quoted) DEFAULT VALUES"
            : "INSERT INTO \(quoted) (\(names.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ", ")))"
    }

    /// What a stored value must be, per column: an attribute's decoder check, or `nil` for a to-one id.
    lazy var columnChecks: [(index: Int, accepts: ((StorageValue) -> Bool)?)] = columns.map { index in
        if case .attribute(let info) = properties[index].kind { return (index, info.accepts) }
        return (index, nil)
    }

    /// The default values of a new object, one per property.
    lazy var defaultValues: [StorageValue] = properties.map { property in
        if case .attribute(let info) = property.kind { return info.defaultValue }
        return .null
    }

    /// `"id", "a", "b"`: the columns a fetch reads, the row id first.
    lazy var selectList: String = (["\"id\""] + columns.map { SQL.quote(properties[$0].name) }).joined(separator: ", ")

    /// The statements that create the table and its indexes.
    /// The name of the index on a to-one relationship's column (made by `createStatements`, checked at open).
    func indexName(ofToOne property: String) -> String { "\(name)_\(property)" }

    var createStatements: [String] {
        var definitions = ["\"id\" INTEGER PRIMARY KEY AUTOINCREMENT"]
        var indexes: [String] = []
        for index in columns {
            let property = properties[index]
            let column = SQL.quote(property.name)
            switch property.kind {
            case .attribute(let info):
                definitions.append("\(column) \(info.columnType.rawValue)\(info.isOptional ? "" : " NOT NULL")")
            case .toOne:
                let target = property.target.map { SQL.quote($0.name) } ?? "\"\""
                definitions.append("\(column) INTEGER REFERENCES \(target)(\"id\") DEFERRABLE INITIALLY DEFERRED")
                indexes.append("CREATE INDEX \(SQL.quote(indexName(ofToOne: property.name))) ON \(quotedName)(\(column))")
            case .toMany:
                break
            }
        }
        return ["CREATE TABLE \(quotedName) (\(definitions.joined(separator: ", "))) STRICT"] + indexes
    }
}

/// SQL text helpers.
enum SQL {
    /// `name` as a quoted identifier.
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
