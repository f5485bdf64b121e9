import GRDB

/// Compares the store's tables with the entity declarations once migrations ran, so a store that does
/// not fit is refused at open with an error naming the entity and the column, instead of failing on
/// every fetch later ("no such column: id").
///
/// What is compared, per entity (its ``TableDesign`` against the ``StoreTable`` SQLite reports):
/// - the table exists, and its `id` is an `INTEGER PRIMARY KEY`;
/// - every declared column exists (missing ones are ``StorageError/schemaMismatch(entity:missingColumns:)``,
///   all at once), with the declared type and `NOT NULL` exactly when the attribute is not optional;
/// - a to-one relationship's column references its target's `id`, and has its index;
/// - a column the entity does not declare is harmless unless it is `NOT NULL` without a default, which
///   would make every insert fail.
enum StoreSchemaCheck {
    static func verify(_ db: Database, _ model: ResolvedModel) throws {
        for design in model.designs { try verify(db, design) }
    }

    private static func verify(_ db: Database, _ design: TableDesign) throws {
        guard let table = try StoreTable.read(db, design.name) else {
            throw StorageError.schemaDiffers(entity: design.name, column: nil, expected: "a table", found: "missing")
        }
        guard let id = table.column("id") else {
            throw StorageError.schemaDiffers(entity: design.name, column: "id", expected: "INTEGER PRIMARY KEY", found: "missing")
        }
        guard table.hasIntegerID else {
            throw StorageError.schemaDiffers(entity: design.name, column: "id", expected: "INTEGER PRIMARY KEY", found: describe(id))
        }
        let missing = design.columns.map(\.name).filter { table.column($0) == nil }
        if !missing.isEmpty { throw StorageError.schemaMismatch(entity: design.name, missingColumns: missing) }

        let indexes = Set(table.indexes.map(\.name))
        for column in design.columns {
            guard let current = table.column(column.name) else { continue }
            if let target = column.references {
                let references = table.references[column.name] == target
                let indexed = indexes.contains(TableDesign.indexName(table: design.name, column: column.name))
                guard column.fits(current, in: table), indexed else {
                    throw StorageError.schemaDiffers(entity: design.name, column: column.name,
                                                     expected: "INTEGER REFERENCES \"\(target)\"(\"id\"), indexed",
                                                     found: describe(current) + (references ? "" : ", no such reference")
                                                        + (indexed ? "" : ", no index"))
                }
            } else if !column.fits(current, in: table) {
                throw StorageError.schemaDiffers(entity: design.name, column: column.name,
                                                 expected: column.type + (column.notNull ? " NOT NULL" : ""), found: describe(current))
            }
        }
        let declared = Set(design.columns.map(\.name) + ["id"])
        for column in table.columns where !declared.contains(column.name) && column.notNull && column.defaultSQL == nil {
            throw StorageError.schemaDiffers(entity: design.name, column: column.name,
                                             expected: "no such column, or one that may be left out of an insert",
                                             found: describe(column) + " without a default")
        }
    }

    private static func describe(_ column: StoreTable.Column) -> String {
        var text = column.type.isEmpty ? "untyped" : column.type.uppercased()
        if column.primaryKey > 0 { text += " PRIMARY KEY" }
        if column.notNull { text += " NOT NULL" }
        return text
    }
}
