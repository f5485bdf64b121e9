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
enum SchemaHistory {
    static let table = "managedstorage_schema"
    /// Entity names may not start with this (lowercased): the store's own tables do.
    static let reservedPrefix = "managedstorage_"

    struct Entry {
        let position: Int64
        let version: String
        let fingerprint: String
        let model: [TableDesign]
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
        let rows = try Row.fetchAll(db, sql: "SELECT position, version, fingerprint, model FROM \(table) ORDER BY position")
        return try rows.map { row in
            let text: String = row["model"]
            let model: [TableDesign]
            do {
                model = try JSONDecoder().decode([TableDesign].self, from: Data(text.utf8))
            } catch {
                throw StorageError.schemaDiffers(entity: table, column: "model", expected: "the JSON of a recorded model",
                                                 found: "text that does not decode (\(error))")
            }
            return Entry(position: row["position"], version: row["version"], fingerprint: row["fingerprint"], model: model)
        }
    }

    /// Records `model` as the store's current one (unless it already is).
    static func append(_ db: Database, version: String, model: [TableDesign]) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(table) (position INTEGER PRIMARY KEY, version TEXT NOT NULL, \
            fingerprint TEXT NOT NULL, model TEXT NOT NULL, recorded TEXT NOT NULL)
            """)
        let fingerprint = fingerprint(model)
        let last = try Row.fetchOne(db, sql: "SELECT version, fingerprint FROM \(table) ORDER BY position DESC LIMIT 1")
        if let last, last["version"] as String == version, last["fingerprint"] as String == fingerprint { return }
        let recorded = ISO8601DateFormatter().string(from: Date())
        try db.execute(sql: "INSERT INTO \(table) (version, fingerprint, model, recorded) VALUES (?, ?, ?, ?)",
                       arguments: [version, fingerprint, canonical(model), recorded])
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
