import GRDB

/// One table as the store has it, read from SQLite's pragmas (never from a cache: a migration reads
/// it again after each change).
struct StoreTable {
    struct Column {
        let name: String
        let type: String
        let notNull: Bool
        let defaultSQL: String?
        let primaryKey: Int
    }

    struct Index {
        let name: String
        let columns: [String]
        /// Made by `CREATE INDEX` (not by a `UNIQUE` or `PRIMARY KEY` constraint).
        let isCreated: Bool
    }

    let name: String
    let columns: [Column]
    /// Column to the table it references (single-column foreign keys to `"id"`).
    let references: [String: String]
    let indexes: [Index]

    func column(_ name: String) -> Column? { columns.first { $0.name == name } }

    /// Whether `id` is the table's one `INTEGER PRIMARY KEY` (a rowid alias), as every entity table's is.
    var hasIntegerID: Bool {
        guard let id = column("id") else { return false }
        return id.primaryKey == 1 && id.type.uppercased() == "INTEGER" && columns.filter { $0.primaryKey > 0 }.count == 1
    }

    /// The table named `name`, or `nil` if the store has none.
    static func read(_ db: Database, _ name: String) throws -> StoreTable? {
        let exists = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?)",
                                       arguments: [name]) ?? false
        guard exists else { return nil }
        let quoted = SQL.quote(name)
        let columns = try Row.fetchAll(db, sql: "PRAGMA table_xinfo(\(quoted))").compactMap { row -> Column? in
            let hidden: Int = row["hidden"]
            guard hidden == 0 else { return nil }
            return Column(name: row["name"], type: (row["type"] as String?) ?? "", notNull: row["notnull"],
                          defaultSQL: row["dflt_value"], primaryKey: row["pk"])
        }
        var references: [String: String] = [:]
        let keys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\(quoted))")
        let byID = Dictionary(grouping: keys, by: { $0["id"] as Int })
        for (_, parts) in byID where parts.count == 1 {
            let part = parts[0]
            let destination: String? = part["to"]
            if destination == nil || destination == "id" { references[part["from"]] = part["table"] }
        }
        let indexes = try Row.fetchAll(db, sql: "PRAGMA index_list(\(quoted))").map { row -> Index in
            let indexName: String = row["name"]
            let indexColumns = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno",
                                                   arguments: [indexName])
            return Index(name: indexName, columns: indexColumns, isCreated: (row["origin"] as String) == "c")
        }
        return StoreTable(name: name, columns: columns, references: references, indexes: indexes)
    }

    /// Every table of the store that is not SQLite's own.
    static func names(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
    }
}
