import GRDB

/// Brings a store's tables to a model's ``TableDesign``s by inferring the changes: what Core Data calls
/// a lightweight migration. It runs inside the open migration's transaction, with foreign keys off.
///
/// In order:
/// 1. tables renamed (`@StorageEntity(originalName:)`), with `ALTER TABLE … RENAME TO`, which also
///    rewrites the other tables' references; the renames of one step are one permutation
///    (``RenamePlan``: chains, swaps and cycles, in any declaration order), and a rename the store's
///    recorded model already declared is not made again;
/// 2. tables the toolkit made that the model no longer has, dropped;
/// 3. per entity: a new table created; or columns renamed (`originalName:`, one permutation too), added with
///    `ALTER TABLE … ADD COLUMN` (with the declared default, `NULL` for an optional), and, when a
///    column must be dropped or changes type, nullability or reference, the table rebuilt as SQLite
///    documents (create the new table, copy the rows with their ids, drop the old one, rename the new
///    one, recreate the indexes and triggers, keep the `AUTOINCREMENT` counter);
/// 4. the to-one indexes made to match;
/// 5. `PRAGMA foreign_key_check`: a relationship left pointing at nothing fails the migration.
///
/// Only tables and columns the toolkit made (``owned``) are ever dropped; columns the model does not
/// know survive a rebuild with their type, nullability and default.
struct InferredMigration {
    let target: [TableDesign]
    /// The tables and columns the toolkit made (``SchemaHistory/owned(_:_:)``); `nil` for a store from
    /// before the history was recorded, where nothing is dropped.
    let owned: [String: Set<String>]?
    /// Only what keeps the old model readable beside the new one (a custom stage's first half):
    /// renames, new tables, new columns (a non-optional one without default added as nullable, for
    /// the stage to fill); no drops, no rebuilds, no foreign key check.
    var additiveOnly = false

    /// The table a rebuild creates before renaming it into place.
    static let rebuildTable = "managedstorage_rebuild"

    /// Renames the model's declarations say the store already went through (recorded with the model
    /// it was last brought to): a cycle of renames looks the same before and after, so these never move
    /// again. Tables as `from → to`; columns as `Table.from → Table.to`, named by the new table.
    var alreadyApplied: Set<RenamePlan.Move> = []

    /// The table and column renames `target` declares, as ``SchemaHistory`` records them.
    static func declaredRenames(_ target: [TableDesign]) -> Set<RenamePlan.Move> {
        var moves = Set<RenamePlan.Move>()
        for table in target {
            if let original = table.originalName { moves.insert(.init(from: original, to: table.name)) }
            for column in table.columns {
                if let original = column.originalName {
                    moves.insert(.init(from: "\(table.name).\(original)", to: "\(table.name).\(column.name)"))
                }
            }
        }
        return moves
    }

    /// Applies the changes.
    func apply(_ db: Database) throws {
        let targetNames = Set(target.map(\.name))
        let tables = RenamePlan.resolve(target.compactMap { table in table.originalName.map { .init(from: $0, to: table.name) } },
                                        existing: Set(try StoreTable.names(db)), alreadyApplied: alreadyApplied)
        try tables.apply(temporaryName: { "\(Self.renameTable)_\($0)" }) { from, to in
            try db.execute(sql: "ALTER TABLE \(SQL.quote(from)) RENAME TO \(SQL.quote(to))")
        }
        // A moved table keeps its indexes' names, which may be another table's now (a swap): the
        // toolkit's are dropped here and made again, under the right names, once every table is in place.
        for move in tables.moves {
            guard let table = target.first(where: { $0.name == move.to }) else { continue }
            try dropOurIndexes(table, db)
        }
        if !additiveOnly, let owned {
            for name in try StoreTable.names(db) where owned[name] != nil && !targetNames.contains(name) {
                try db.execute(sql: "DROP TABLE \(SQL.quote(name))")
            }
        }
        for table in target { try migrate(table, db) }
        if !additiveOnly { try checkReferences(db) }
    }

    /// The prefix of the temporary names renames go through.
    static let renameTable = "managedstorage_renaming"

    /// Drops the toolkit's to-one indexes on `table` (under any name it or its columns had).
    private func dropOurIndexes(_ table: TableDesign, _ db: Database) throws {
        guard let existing = try StoreTable.read(db, table.name) else { return }
        let ours = ourIndexNames(table)
        for index in existing.indexes where index.isCreated && ours.contains(index.name) {
            try db.execute(sql: "DROP INDEX \(SQL.quote(index.name))")
        }
    }

    /// The columns of `table` the toolkit made (under its current or original name).
    private func ownedColumns(_ table: TableDesign) -> Set<String> {
        guard let owned else { return [] }
        var columns = owned[table.name] ?? []
        if let original = table.originalName { columns.formUnion(owned[original] ?? []) }
        return columns
    }

    private func migrate(_ table: TableDesign, _ db: Database) throws {
        guard var existing = try StoreTable.read(db, table.name) else {
            for statement in table.createStatements { try db.execute(sql: statement) }
            return
        }
        guard existing.hasIntegerID else {
            throw StorageError.schemaDiffers(entity: table.name, column: "id", expected: "INTEGER PRIMARY KEY",
                                             found: existing.column("id").map { "\($0.type), not the table's one primary key" } ?? "missing")
        }
        let declared = Set(table.columns.map(\.name))
        let prefix = "\(table.name)."
        let columnMoves = RenamePlan.resolve(
            table.columns.compactMap { column in column.originalName.map { .init(from: $0, to: column.name) } },
            existing: Set(existing.columns.map(\.name)),
            alreadyApplied: Set(alreadyApplied.filter { $0.from.hasPrefix(prefix) && $0.to.hasPrefix(prefix) }
                .map { .init(from: String($0.from.dropFirst(prefix.count)), to: String($0.to.dropFirst(prefix.count))) }))
        if !columnMoves.isEmpty {
            try dropOurIndexes(table, db)
            try columnMoves.apply(temporaryName: { "\(Self.renameTable)_\($0)" }) { from, to in
                try db.execute(sql: "ALTER TABLE \(SQL.quote(table.name)) RENAME COLUMN \(SQL.quote(from)) TO \(SQL.quote(to))")
            }
            existing = try StoreTable.read(db, table.name) ?? existing
        }
        var rebuild = false
        for column in table.columns {
            if let current = existing.column(column.name) {
                if !column.fits(current, in: existing) { rebuild = true }
                continue
            }
            var added = column
            if column.notNull && column.defaultSQL == nil {
                guard additiveOnly else { throw StorageError.migrationNeedsDefault(entity: table.name, attribute: column.name) }
                added.notNull = false
            }
            try db.execute(sql: "ALTER TABLE \(SQL.quote(table.name)) ADD COLUMN \(added.definition)")
            existing = try StoreTable.read(db, table.name) ?? existing
            if let current = existing.column(column.name), !column.fits(current, in: existing) { rebuild = true }
        }
        let owned = ownedColumns(table)
        let dropped = existing.columns.map(\.name).filter { $0 != "id" && !declared.contains($0) && owned.contains($0) }
        if !dropped.isEmpty { rebuild = true }
        if rebuild && !additiveOnly {
            try self.rebuild(table, from: existing, dropping: Set(dropped), db)
        }
        try syncIndexes(table, db)
    }

    /// SQLite's procedure for the changes `ALTER TABLE` cannot make (https://www.sqlite.org/lang_altertable.html#otheralter).
    private func rebuild(_ table: TableDesign, from existing: StoreTable, dropping dropped: Set<String>, _ db: Database) throws {
        let quoted = SQL.quote(table.name)
        // A non-optional column that held NULLs keeps no row it cannot hold: its default, or a typed error.
        for column in table.columns where column.notNull {
            guard let current = existing.column(column.name), !current.notNull, column.defaultSQL == nil else { continue }
            let nulls = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoted) WHERE \(SQL.quote(column.name)) IS NULL") ?? 0
            if nulls > 0 { throw StorageError.migrationNeedsValue(entity: table.name, attribute: column.name, rows: nulls) }
        }
        try checkConversions(table, from: existing, db)
        let declared = Set(table.columns.map(\.name))
        let kept = existing.columns.filter { $0.name != "id" && !declared.contains($0.name) && !dropped.contains($0.name) }
        let keptDefinitions = kept.map { column in
            "\(SQL.quote(column.name)) \(column.type)" + (column.notNull ? " NOT NULL" : "")
                + (column.defaultSQL.map { " DEFAULT \($0)" } ?? "")
        }
        let counter = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table.name])
        let ours = ourIndexNames(table)
        let saved = try Row.fetchAll(db, sql: """
            SELECT name, sql FROM sqlite_schema WHERE type IN ('index', 'trigger') AND tbl_name = ? AND sql IS NOT NULL
            """, arguments: [table.name]).filter { !ours.contains($0["name"] as String) }

        let temporary = SQL.quote(Self.rebuildTable)
        try db.execute(sql: "DROP TABLE IF EXISTS \(temporary)")
        try db.execute(sql: table.createTableSQL(as: Self.rebuildTable, extraDefinitions: keptDefinitions))
        var targets = ["\"id\""]
        var sources = ["\"id\""]
        for column in table.columns {
            targets.append(SQL.quote(column.name))
            if let current = existing.column(column.name) {
                let value = SQL.quote(column.name)
                sources.append(column.notNull && !current.notNull && column.defaultSQL != nil
                               ? "COALESCE(\(value), \(column.defaultSQL!))" : value)
            } else {
                sources.append(column.defaultSQL ?? "NULL")
            }
        }
        for column in kept {
            targets.append(SQL.quote(column.name))
            sources.append(SQL.quote(column.name))
        }
        try db.execute(sql: "INSERT INTO \(temporary) (\(targets.joined(separator: ", "))) SELECT \(sources.joined(separator: ", ")) FROM \(quoted)")
        try db.execute(sql: "DROP TABLE \(quoted)")
        // The rename must not rewrite other tables' references to the dropped table (they mean the new one).
        try db.execute(sql: "PRAGMA legacy_alter_table = ON")
        do {
            try db.execute(sql: "ALTER TABLE \(temporary) RENAME TO \(quoted)")
        } catch {
            try? db.execute(sql: "PRAGMA legacy_alter_table = OFF")
            throw error
        }
        try db.execute(sql: "PRAGMA legacy_alter_table = OFF")
        for row in saved {
            let name: String = row["name"]
            do {
                try db.execute(sql: row["sql"])
            } catch {
                throw StorageError.migrationFailed(version: "inferred", underlying:
                    "\(table.name): the index or trigger \(name) no longer fits the table (\(error)); drop it in a StorageSchemaVersion before this one")
            }
        }
        if let counter {
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", arguments: [counter, table.name])
            if db.changesCount == 0 {
                try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", arguments: [table.name, counter])
            }
        }
    }

    /// Fails before a rebuild converts a stored value into one that is not equal to it: SQLite turns an
    /// integer past 2^53 into the nearest `REAL`, and a `REAL` into text of 15 digits, silently. (A
    /// value a `STRICT` column cannot take at all, text into `INTEGER`, fails the copy itself.)
    private func checkConversions(_ table: TableDesign, from existing: StoreTable, _ db: Database) throws {
        for column in table.columns {
            guard let current = existing.column(column.name), current.type.uppercased() != column.type else { continue }
            let value = SQL.quote(column.name)
            let lossy: String
            switch (current.type.uppercased(), column.type) {
            case ("INTEGER", "REAL"):
                lossy = "typeof(\(value)) = 'integer' AND CAST(CAST(\(value) AS REAL) AS INTEGER) <> \(value)"
            case ("REAL", "TEXT"):
                lossy = "typeof(\(value)) = 'real' AND CAST(CAST(\(value) AS TEXT) AS REAL) <> \(value)"
            case ("REAL", "INTEGER"):
                lossy = "typeof(\(value)) = 'real' AND CAST(\(value) AS INTEGER) <> \(value)"
            default:
                continue
            }
            let quoted = SQL.quote(table.name)
            let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quoted) WHERE \(lossy)") ?? 0
            guard rows > 0 else { continue }
            let example = try Row.fetchOne(db, sql: "SELECT \"id\", \(value) FROM \(quoted) WHERE \(lossy) ORDER BY \"id\" LIMIT 1")
            let found = example.map { "row \($0[0] as Int64? ?? 0) holds \($0[1] as DatabaseValue)" } ?? ""
            throw StorageError.migrationCannotConvert(entity: table.name, attribute: column.name, rows: rows,
                                                      example: "\(found), which \(column.type) cannot hold exactly")
        }
    }

    /// The names the toolkit's to-one indexes on `table` may have: "<table>_<column>" for any name the
    /// table or a column of it had. Other indexes are the program's own, kept (and recreated by a rebuild).
    private func ourIndexNames(_ table: TableDesign) -> Set<String> {
        let tableNames = [table.name] + (table.originalName.map { [$0] } ?? [])
        var columnNames = Set(table.columns.map(\.name) + table.columns.compactMap(\.originalName))
        columnNames.formUnion(ownedColumns(table))
        return Set(tableNames.flatMap { name in columnNames.map { TableDesign.indexName(table: name, column: $0) } })
    }

    /// Creates the to-one indexes the design has and drops the toolkit's ones it no longer has.
    private func syncIndexes(_ table: TableDesign, _ db: Database) throws {
        guard let existing = try StoreTable.read(db, table.name) else { return }
        let expected = table.indexes
        let expectedNames = Set(expected.map(\.name))
        let ours = ourIndexNames(table)
        for index in existing.indexes where index.isCreated && ours.contains(index.name) && !expectedNames.contains(index.name) && !additiveOnly {
            try db.execute(sql: "DROP INDEX \(SQL.quote(index.name))")
        }
        for index in expected {
            if let found = existing.indexes.first(where: { $0.name == index.name }) {
                if found.columns == [index.column] { continue }
                if additiveOnly { continue }
                try db.execute(sql: "DROP INDEX \(SQL.quote(index.name))")
            }
            try db.execute(sql: table.createIndexSQL(index))
        }
    }

    /// Fails when a row points at a row that does not exist (a relationship moved to another entity).
    private func checkReferences(_ db: Database) throws {
        let rows = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
        guard let first = rows.first else { return }
        let table: String = first["table"]
        let parent: String = first["parent"]
        let key: Int = first["fkid"]
        let column = try String.fetchOne(db, sql: "SELECT \"from\" FROM pragma_foreign_key_list(?) WHERE id = ?",
                                         arguments: [table, key]) ?? "?"
        throw StorageError.migrationBrokeRelationship(entity: table, relationship: column, target: parent, rows: rows.count)
    }
}
