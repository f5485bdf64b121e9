/// The table an entity is stored in, as its declaration makes it: what a new store creates, what an
/// inferred migration brings an existing store to, and what the store's recorded model (and its
/// fingerprint) is made of.
///
/// The layout, which the SQL escape hatch of ``StorageSchemaVersion`` runs against:
/// - one `STRICT` table per entity, named after it, with `"id" INTEGER PRIMARY KEY AUTOINCREMENT`;
/// - one column per attribute, named after the property, of its ``StorageColumnType``, `NOT NULL`
///   unless the attribute is optional, with `DEFAULT` when `@Attribute(default:)` declares one;
/// - one column per to-one relationship, `INTEGER REFERENCES "Target"("id") DEFERRABLE INITIALLY
///   DEFERRED`, indexed by `"<Entity>_<property>"`;
/// - nothing for a to-many relationship (its objects are the rows whose inverse points back).
struct TableDesign: Codable, Equatable, Sendable {
    var name: String
    var columns: [ColumnDesign]
    /// The table's name in the previous model version (a hint for the migration, not part of the
    /// schema: not recorded, not in the fingerprint).
    var originalName: String?

    enum CodingKeys: String, CodingKey { case name, columns }

    func column(_ name: String) -> ColumnDesign? { columns.first { $0.name == name } }

    /// The index every to-one relationship's column has.
    static func indexName(table: String, column: String) -> String { "\(table)_\(column)" }

    /// The indexes of the to-one columns: name and column.
    var indexes: [(name: String, column: String)] {
        columns.filter { $0.references != nil }.map { (Self.indexName(table: name, column: $0.name), $0.name) }
    }

    /// `CREATE TABLE` for this design under `tableName` (its own name unless given), with
    /// `extraDefinitions` (columns the model does not know, kept by a rebuild) at the end.
    func createTableSQL(as tableName: String? = nil, extraDefinitions: [String] = []) -> String {
        let definitions = ["\"id\" INTEGER PRIMARY KEY AUTOINCREMENT"] + columns.map(\.definition) + extraDefinitions
        return "CREATE TABLE \(SQL.quote(tableName ?? name)) (\(definitions.joined(separator: ", "))) STRICT"
    }

    func createIndexSQL(_ index: (name: String, column: String)) -> String {
        "CREATE INDEX \(SQL.quote(index.name)) ON \(SQL.quote(name))(\(SQL.quote(index.column)))"
    }

    /// The statements that create the table and its indexes.
    var createStatements: [String] { [createTableSQL()] + indexes.map(createIndexSQL) }
}

/// One column of a ``TableDesign``.
struct ColumnDesign: Codable, Equatable, Sendable {
    var name: String
    /// `INTEGER`, `REAL`, `TEXT` or `BLOB`.
    var type: String
    var notNull: Bool
    /// The SQL literal of the declared default, if any.
    var defaultSQL: String?
    /// The table a to-one relationship's column points at.
    var references: String?
    /// The column's name in the previous model version (a hint, not recorded).
    var originalName: String?

    enum CodingKeys: String, CodingKey { case name, type, notNull, defaultSQL, references }

    /// Whether the store's column `current` of `table` is what this design makes it: the type, the
    /// nullability, and the reference (the migration rebuilds a table where one does not fit; the
    /// check at open refuses it).
    func fits(_ current: StoreTable.Column, in table: StoreTable) -> Bool {
        current.type.uppercased() == type && current.notNull == notNull && table.references[name] == references
    }

    /// The column's definition in `CREATE TABLE` (and `ALTER TABLE … ADD COLUMN`).
    var definition: String {
        var text = "\(SQL.quote(name)) \(type)"
        if notNull { text += " NOT NULL" }
        if let defaultSQL { text += " DEFAULT \(defaultSQL)" }
        if let references { text += " REFERENCES \(SQL.quote(references))(\"id\") DEFERRABLE INITIALLY DEFERRED" }
        return text
    }
}
