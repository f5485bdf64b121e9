import Crypto
import Foundation
import GRDB

/// The models a store was brought to, recorded in the store itself, so a program never guesses
/// which model a store is at.
///
/// Table `managedstorage_schema`, one row per model the store was created with or migrated to:
/// `position`, the last schema `version` the program knew, the model's `fingerprint` (SHA-256 of its
/// canonical JSON) and the `model` itself (the JSON of its ``TableDesign``s). Opening compares the
/// last row with the program's model: equal, nothing to infer; different, an inferred migration.
/// A program whose model is in the history but not last is older than the store: it is refused.
///
/// Two more columns, hints beside the model (not in its fingerprint, `NULL` in rows an earlier
/// toolkit wrote): `renames`, the renames the model declared (JSON of ``RenamePlan/Move``s: a rename
/// recorded there is never made again, which is what tells a cycle of renames done from one not yet
/// done), and `types`, each attribute column's value type (``AttributeInfo/typeIdentity``, JSON by
/// `Table.column`): a column whose type changed is checked row by row (``AttributeValueCheck``).
enum SchemaHistory {
    static let table = "managedstorage_schema"
    /// Entity names may not start with this (lowercased): the store's own tables do.
    static let reservedPrefix = "managedstorage_"

    struct Entry {
        let position: Int64
        let version: String
        let fingerprint: String
        let model: [TableDesign]
        /// `nil` in a row an earlier toolkit recorded.
        let renames: Set<RenamePlan.Move>?
        /// `nil` in a row an earlier toolkit recorded.
        let types: [String: String]?
    }

    /// The canonical JSON of `model`: tables in model order, keys sorted, hints left out.
    static func canonical(_ model: [TableDesign]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain structs of strings and booleans cannot fail.
        let data = (try? encoder.encode(model)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func fingerprint(_ model: [TableDesign]) -> String {
        SHA256.hash(data: Data(canonical(model).utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func read(_ db: Database) throws -> [Entry] {
        guard try db.tableExists(table) else { return [] }
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY position")
        return try rows.map { row in
            let text: String = row["model"]
            let model: [TableDesign]
            do {
                model = try JSONDecoder().decode([TableDesign].self, from: Data(text.utf8))
            } catch {
                throw StorageError.schemaDiffers(entity: table, column: "model", expected: "the JSON of a recorded model",
                                                 found: "text that does not decode (\(error))")
            }
            let renames = (row.hasColumn("renames") ? row["renames"] as String? : nil)
                .flatMap { try? JSONDecoder().decode([RenamePlan.Move].self, from: Data($0.utf8)) }.map(Set.init)
            let types = (row.hasColumn("types") ? row["types"] as String? : nil)
                .flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
            return Entry(position: row["position"], version: row["version"], fingerprint: row["fingerprint"], model: model,
                         renames: renames, types: types)
        }
    }

    /// Whether the last recorded entry is exactly this: the same version, model, renames and types.
    static func isCurrent(_ history: [Entry], version: String, fingerprint: String,
                          renames: Set<RenamePlan.Move>, types: [String: String]) -> Bool {
        guard let last = history.last else { return false }
        return last.version == version && last.fingerprint == fingerprint && last.renames == renames && last.types == types
    }

    private static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Plain strings: cannot fail.
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }

    /// Records `model`, with the renames it declares and its attributes' types, as the store's current
    /// one (unless it already is).
    static func append(_ db: Database, version: String, model: [TableDesign], renames: Set<RenamePlan.Move>,
                       types: [String: String]) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(table) (position INTEGER PRIMARY KEY, version TEXT NOT NULL, \
            fingerprint TEXT NOT NULL, model TEXT NOT NULL, recorded TEXT NOT NULL, renames TEXT, types TEXT)
            """)
        let columns = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('\(table)')"))
        for column in ["renames", "types"] where !columns.contains(column) {
            try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(column) TEXT")
        }
        let fingerprint = fingerprint(model)
        if isCurrent(try read(db), version: version, fingerprint: fingerprint, renames: renames, types: types) { return }
        let recorded = ISO8601DateFormatter().string(from: Date())
        let moves = renames.sorted { ($0.from, $0.to) < ($1.from, $1.to) }
        try db.execute(sql: "INSERT INTO \(table) (version, fingerprint, model, recorded, renames, types) VALUES (?, ?, ?, ?, ?, ?)",
                       arguments: [version, fingerprint, canonical(model), recorded, json(moves), json(types)])
    }

    /// The tables and columns the toolkit made in this store: those of every recorded model and of
    /// `models`. A migration drops a table or column only if it is one of these.
    static func owned(_ history: [Entry], _ models: [[TableDesign]]) -> [String: Set<String>] {
        var owned: [String: Set<String>] = [:]
        for model in history.map(\.model) + models {
            for table in model { owned[table.name, default: []].formUnion(table.columns.map(\.name)) }
        }
        return owned
    }
}
