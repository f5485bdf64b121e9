import Foundation
import GRDB

/// The entities a store holds and the schema versions it went through.
///
/// The entities' declarations are the current schema. A new store is created from them directly, and
/// every listed version counts as applied. An existing store runs, in order, the versions it has not
/// applied yet, then the changes inferred from the declarations (an added, removed or renamed
/// attribute, relationship or entity), all of it as one unit; afterwards its tables must be what the
/// declarations make them.
///
/// Most changes need no version at all: change the entity, and the store follows at the next open.
/// List a version for what cannot be inferred (a custom stage), for SQL of your own, or to mark a
/// released model so that older programs refuse the store:
///
/// ```swift
/// let model = StorageModel(entities: [Order.self, Customer.self], versions: [
///     .inferred("2-customers"),
///     .custom("3-split-name", from: [V2.Customer.self], to: [Customer.self]) { old, new in
///         for customer in old.allObjects(ofType: V2.Customer.self) {
///             let parts = customer.name.split(separator: " ", maxSplits: 1)
///             let copy = new.loadObject(ofType: Customer.self, with: customer.objectID)
///             copy?.givenName = parts.first.map(String.init) ?? ""
///             copy?.familyName = parts.dropFirst().first.map(String.init) ?? ""
///         }
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

/// Every entity of a model with its table layout and relationships resolved.
final class ResolvedModel: @unchecked Sendable {
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

/// One property's place in the table and, for relationships, its resolved other end.
struct PropertySchema {
    /// The column's name (the property's, unless a ``TablePlacement`` says otherwise).
    let name: String
    let kind: PropertyKind
    /// The name in the previous model version (`originalName:`), for migrations.
    var originalName: String? = nil
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

    /// The table's name in the previous model version (`@StorageEntity(originalName:)`).
    let originalName: String?

    init<T: StorageEntity>(_ type: T.Type, placement: TablePlacement? = nil) {
        name = placement?.table ?? T.entityName
        originalName = T.originalEntityName
        let quoted = SQL.quote(name)
        quotedName = quoted
        let declared = T._$properties
        let properties = declared.map {
            PropertySchema(name: placement?.columns[$0.name] ?? $0.name, kind: $0.kind, originalName: $0.originalName,
                           inverse: nil, target: nil)
        }
        self.properties = properties
        var keyPaths: [AnyKeyPath: Int] = [:]
        for (index, property) in declared.enumerated() { keyPaths[property.keyPath] = index }
        keyPathIndex = keyPaths
        make = { T(_$backing: $0) }
        let columns = properties.indices.filter { properties[$0].isColumn }
        self.columns = columns
        toOneIndexes = columns.filter { if case .toOne = declared[$0].kind { true } else { false } }
        let names = columns.map { SQL.quote(properties[$0].name) }
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

    /// The name of the index on a to-one relationship's column (made by `createStatements`, checked at open).
    func indexName(ofToOne property: String) -> String { TableDesign.indexName(table: name, column: property) }

    /// The table as the declarations make it (needs the model's links: a to-one column names its target).
    var design: TableDesign {
        TableDesign(name: name, columns: columns.map { index in
            let property = properties[index]
            switch property.kind {
            case .attribute(let info):
                return ColumnDesign(name: property.name, type: info.columnType.rawValue, notNull: !info.isOptional,
                                    defaultSQL: info.declaredDefault.map(SQL.literal), references: nil,
                                    originalName: property.originalName)
            case .toOne(let relation), .toMany(let relation):
                return ColumnDesign(name: property.name, type: "INTEGER", notNull: false, defaultSQL: nil,
                                    references: property.target?.name ?? relation.targetName,
                                    originalName: property.originalName)
            }
        }, originalName: originalName)
    }

    /// The statements that create the table and its indexes.
    var createStatements: [String] { design.createStatements }
}

/// SQL text helpers.
enum SQL {
    /// `name` as a quoted identifier.
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `value` as an SQL literal (a column's `DEFAULT`).
    static func literal(_ value: StorageValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let v): return "\(v)"
        case .real(let v):
            if v.isNaN { return "NULL" }
            if v.isInfinite { return v < 0 ? "-9e999" : "9e999" }
            let text = "\(v)"
            return text.contains(".") || text.contains("e") ? text : text + ".0"
        case .text(let v): return "'" + v.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let v): return "X'" + v.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
