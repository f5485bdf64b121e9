import GRDB

/// Compares the store's tables with the entity declarations once migrations ran, so a store that does
/// not fit is refused at open with an error naming the entity and the column, instead of failing on
/// every fetch later ("no such column: id").
///
/// What is compared, per entity (the layout `EntitySchema.createStatements` makes):
/// - the table exists, and its `id` is an `INTEGER PRIMARY KEY`;
/// - every declared column exists (missing ones are ``StorageError/schemaMismatch(entity:missingColumns:)``,
///   all at once), with the declared type and `NOT NULL` exactly when the attribute is not optional;
/// - a to-one relationship's column references its target's `id`, and has its index;
/// - a column the entity does not declare is harmless unless it is `NOT NULL` without a default, which
///   would make every insert fail.
enum StoreSchemaCheck {
    static func verify(_ db: Database, _ model: ResolvedModel) throws {
        for entity in model.entities { try verify(db, entity) }
    }

    private static func verify(_ db: Database, _ entity: EntitySchema) throws {
        guard try db.tableExists(entity.name) else {
            throw StorageError.schemaDiffers(entity: entity.name, column: nil, expected: "a table", found: "missing")
        }
        let columns = try db.columns(in: entity.name)
        let byName = Dictionary(columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        guard let id = byName["id"] else {
            throw StorageError.schemaDiffers(entity: entity.name, column: "id", expected: "INTEGER PRIMARY KEY", found: "missing")
        }
        guard id.primaryKeyIndex == 1, id.type.uppercased() == "INTEGER",
              columns.filter({ $0.primaryKeyIndex > 0 }).count == 1 else {
            throw StorageError.schemaDiffers(entity: entity.name, column: "id", expected: "INTEGER PRIMARY KEY",
                                             found: describe(id))
        }
        let declared = entity.columns.map { entity.properties[$0] }
        let missing = declared.map(\.name).filter { byName[$0] == nil }
        if !missing.isEmpty { throw StorageError.schemaMismatch(entity: entity.name, missingColumns: missing) }

        let foreignKeys = try db.foreignKeys(on: entity.name)
        let indexes = Set(try db.indexes(on: entity.name).map(\.name))
        for property in declared {
            guard let column = byName[property.name] else { continue }
            switch property.kind {
            case .attribute(let info):
                let expected = info.columnType.rawValue + (info.isOptional ? "" : " NOT NULL")
                if column.type.uppercased() != info.columnType.rawValue || column.isNotNull == info.isOptional {
                    throw StorageError.schemaDiffers(entity: entity.name, column: property.name, expected: expected,
                                                     found: describe(column))
                }
            case .toOne:
                let target = property.target?.name ?? ""
                let expected = "INTEGER REFERENCES \"\(target)\"(\"id\"), indexed"
                let indexed = indexes.contains(entity.indexName(ofToOne: property.name))
                let references = foreignKeys.contains { key in
                    key.destinationTable == target && key.mapping.count == 1
                        && key.mapping[0].origin == property.name && key.mapping[0].destination == "id"
                }
                guard column.type.uppercased() == "INTEGER", !column.isNotNull, references, indexed else {
                    throw StorageError.schemaDiffers(entity: entity.name, column: property.name, expected: expected,
                                                     found: describe(column) + (references ? "" : ", no such reference")
                                                        + (indexed ? "" : ", no index"))
                }
            case .toMany:
                continue
            }
        }
        let declaredNames = Set(declared.map(\.name) + ["id"])
        for column in columns where !declaredNames.contains(column.name) && column.isNotNull && column.defaultValueSQL == nil {
            throw StorageError.schemaDiffers(entity: entity.name, column: column.name,
                                             expected: "no such column, or one that may be left out of an insert",
                                             found: describe(column) + " without a default")
        }
    }

    private static func describe(_ column: ColumnInfo) -> String {
        var text = column.type.isEmpty ? "untyped" : column.type.uppercased()
        if column.primaryKeyIndex > 0 { text += " PRIMARY KEY" }
        if column.isNotNull { text += " NOT NULL" }
        return text
    }
}
