import Foundation
import GRDB

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
// @unchecked Sendable: `properties` and `incoming` change only in `ResolvedModel.link` (before the model is shared) and its `deinit`; every other field is a constant, `make` keeps no state
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
    /// What a stored value must be, per column (checked on every row read).
    let columnChecks: [ColumnCheck]
    /// The default values of a new object, one per property.
    let defaultValues: [StorageValue]
    /// `"id", "a", "b"`: the columns a fetch reads, the row id first.
    let selectList: String

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
        // Computed here, not lazily: a schema is shared by storages on several threads.
        columnChecks = columns.map { index in
            if case .attribute(let info) = properties[index].kind { return ColumnCheck(attribute: index, info) }
            return ColumnCheck(toOne: index)
        }
        defaultValues = properties.map { property in
            if case .attribute(let info) = property.kind { return info.defaultValue }
            return .null
        }
        selectList = (["\"id\""] + names).joined(separator: ", ")
    }


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
