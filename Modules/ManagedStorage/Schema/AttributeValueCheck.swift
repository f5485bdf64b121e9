import GRDB

/// A migration's check that every stored value of an attribute whose type changed is one the new type
/// can hold, run inside the migration's transaction after the tables are in place.
///
/// SQLite's `STRICT` tables already hold only values of each column's kind, so the attributes whose
/// type decodes any value of its kind (`String`, `Int64`, `Double`, `Data`, …) need no check. The
/// others decide by their decoder (the smaller integers' ranges, an enum's cases, UUID and URL
/// parsing): a column of such a type whose recorded type differs from the model's (``SchemaHistory``'s
/// `types`; all of them in a store whose history predates that record) is read row by row, and any
/// row the decoder refuses fails the migration with ``StorageError/migrationCannotConvert(entity:attribute:rows:example:)``.
/// Without it the store would open, and every later read of such a row would fail.
enum AttributeValueCheck {
    /// Each attribute column's type, by `Table.column`: what ``SchemaHistory`` records.
    static func types(_ model: ResolvedModel) -> [String: String] {
        var types: [String: String] = [:]
        for entity in model.entities {
            for property in entity.properties {
                if case .attribute(let info) = property.kind { types["\(entity.name).\(property.name)"] = info.typeIdentity }
            }
        }
        return types
    }

    /// Checks the columns whose type differs from `recorded` (every one when `recorded` is `nil`).
    static func run(_ db: Database, model: ResolvedModel, recorded: [String: String]?) throws {
        for entity in model.entities {
            for check in entity.columnChecks {
                guard case .decoder = check.rule, case .attribute(let info) = entity.properties[check.index].kind else { continue }
                let column = entity.properties[check.index].name
                if let recorded, recorded["\(entity.name).\(column)"] == info.typeIdentity { continue }
                try verify(db, entity: entity, column: column, check: check, typeName: info.typeName)
            }
        }
    }

    private static func verify(_ db: Database, entity: EntitySchema, column: String, check: ColumnCheck, typeName: String) throws {
        guard try db.tableExists(entity.name) else { return }
        let rows = try Row.fetchCursor(db, sql: "SELECT \"id\", \(SQL.quote(column)) FROM \(entity.quotedName) ORDER BY \"id\"")
        var refused = 0
        var example: String?
        while let row = try rows.next() {
            let value = StorageValue(databaseValue: row[1] as DatabaseValue)
            guard !check.accepts(value) else { continue }
            refused += 1
            if example == nil { example = "row \(row[0] as Int64) holds \(value), which \(typeName) cannot hold" }
        }
        if let example {
            throw StorageError.migrationCannotConvert(entity: entity.name, attribute: column, rows: refused, example: example)
        }
    }
}
