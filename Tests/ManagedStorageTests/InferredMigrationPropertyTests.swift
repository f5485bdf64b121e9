import Foundation
import GRDB
@testable import ManagedStorage
import Testing
import TestSupport

/// Random model pairs (printed seed; replay with `PLIST_DIFF_SEED=<seed>`): generate a model, fill it,
/// change it (attributes and to-one relationships added, dropped, renamed, widened or made
/// non-optional with a default; tables added, dropped, renamed), migrate, and compare every value.
///
/// Invariants, per round:
/// - every table of the new model is exactly what its design makes it (columns, types, nullability,
///   references, indexes), and no dropped table or column is left;
/// - every row of a kept (or renamed) table is there with its id, and every kept (or renamed) column
///   holds the old value (widened `INTEGER` to `REAL`; `NULL` made the default where the column
///   became non-optional); an added column holds its default or `NULL`;
/// - no reference points at nothing, and the `AUTOINCREMENT` counter never goes back (an id once
///   used, even by a deleted row, is never given again).
@Suite struct InferredMigrationPropertyTests {
    struct Generator {
        var rng: SeededGenerator
        var next = 0

        mutating func name(_ prefix: String) -> String {
            next += 1
            return "\(prefix)\(next)"
        }

        mutating func column(references tables: [String]) -> ColumnDesign {
            if !tables.isEmpty && rng.chance(0.25) {
                return ColumnDesign(name: name("r"), type: "INTEGER", notNull: false, defaultSQL: nil, references: rng.pick(tables))
            }
            let type = rng.pick(["INTEGER", "REAL", "TEXT", "BLOB"])
            let notNull = rng.chance(0.5)
            let defaultSQL: String? = rng.chance(0.4) ? SQL.literal(value(type)) : nil
            return ColumnDesign(name: name("c"), type: type, notNull: notNull, defaultSQL: defaultSQL, references: nil)
        }

        mutating func value(_ type: String) -> StorageValue {
            switch type {
            case "INTEGER": .integer(Int64(rng.int(in: -1000...1000)))
            case "REAL": .real(Double(rng.int(in: -1000...1000)) / 4)
            case "TEXT": .text(rng.pick(["", "a", "O'Brien", "été", "line\nbreak", "\(rng.int(in: 0...99))"]))
            default: .blob(Data((0..<rng.int(in: 0...4)).map { _ in UInt8(rng.int(in: 0...255)) }))
            }
        }

        mutating func model() -> [TableDesign] {
            var tables: [TableDesign] = []
            for _ in 0..<rng.int(in: 1...4) {
                let names = tables.map(\.name)
                let table = name("T")
                tables.append(TableDesign(name: table, columns: (0..<rng.int(in: 0...5)).map { _ in column(references: names) }))
            }
            return tables
        }

        /// `model` changed at random; the hints (`originalName`) say what was renamed.
        mutating func change(_ model: [TableDesign]) -> [TableDesign] {
            var tables = model
            // Dropped tables (and every reference to them).
            if tables.count > 1 && rng.chance(0.3) {
                let dropped = tables.remove(at: rng.int(in: 0...(tables.count - 1))).name
                for index in tables.indices { tables[index].columns.removeAll { $0.references == dropped } }
            }
            // Renamed tables (and the references to them).
            for index in tables.indices where rng.chance(0.25) {
                let old = tables[index].name
                let new = name("T")
                tables[index].name = new
                tables[index].originalName = old
                for other in tables.indices {
                    for column in tables[other].columns.indices where tables[other].columns[column].references == old {
                        tables[other].columns[column].references = new
                    }
                }
            }
            let names = tables.map(\.name)
            for index in tables.indices {
                var columns: [ColumnDesign] = []
                for var column in tables[index].columns {
                    let roll = rng.int(in: 0...9)
                    if roll == 0 { continue }                                   // dropped
                    if roll == 1 {                                              // renamed
                        column.originalName = column.name
                        column.name = name("c")
                    } else if roll == 2 && column.type == "INTEGER" && column.references == nil {
                        column.type = "REAL"                                    // widened
                    } else if roll == 3 && column.references == nil && !column.notNull {
                        column.notNull = true                                   // made non-optional, with a default
                        column.defaultSQL = column.defaultSQL ?? SQL.literal(value(column.type))
                    } else if roll == 4 && column.notNull {
                        column.notNull = false                                  // made optional
                    }
                    columns.append(column)
                }
                for _ in 0..<rng.int(in: 0...2) {                               // added
                    var column = self.column(references: names)
                    if column.notNull && column.defaultSQL == nil { column.defaultSQL = SQL.literal(value(column.type)) }
                    columns.insert(column, at: rng.int(in: 0...columns.count))
                }
                tables[index].columns = columns
            }
            if rng.chance(0.3) {                                                // added table
                let table = name("T")
                tables.append(TableDesign(name: table, columns: (0..<rng.int(in: 0...3)).map { _ in column(references: names) }))
            }
            return tables
        }
    }

    typealias Rows = [String: [Int64: [String: StorageValue]]]

    /// Fills `model`'s tables with random rows (references to existing rows or `NULL`), then adds and
    /// deletes one row per table, so the counter is past the largest id.
    static func fill(_ db: Database, _ model: [TableDesign], _ generator: inout Generator) throws -> (Rows, [String: Int64]) {
        var rows: Rows = [:]
        var counters: [String: Int64] = [:]
        for table in model {
            for _ in 0..<generator.rng.int(in: 0...12) {
                var values: [String: StorageValue] = [:]
                for column in table.columns {
                    if let target = column.references {
                        let ids = rows[target].map { Array($0.keys) } ?? []
                        values[column.name] = ids.isEmpty || generator.rng.chance(0.3) ? .null : .integer(generator.rng.pick(ids))
                    } else if !column.notNull && generator.rng.chance(0.3) {
                        values[column.name] = .null
                    } else {
                        values[column.name] = generator.value(column.type)
                    }
                }
                let names = table.columns.map(\.name)
                let sql = names.isEmpty ? "INSERT INTO \(SQL.quote(table.name)) DEFAULT VALUES"
                    : "INSERT INTO \(SQL.quote(table.name)) (\(names.map(SQL.quote).joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
                try db.execute(sql: sql, arguments: SchemaDatabase.arguments(names.map { values[$0]! }))
                rows[table.name, default: [:]][db.lastInsertedRowID] = values
            }
            let extra = table.columns.map { $0.notNull ? generator.value($0.type) : StorageValue.null }
            let names = table.columns.map(\.name)
            try db.execute(sql: names.isEmpty ? "INSERT INTO \(SQL.quote(table.name)) DEFAULT VALUES"
                : "INSERT INTO \(SQL.quote(table.name)) (\(names.map(SQL.quote).joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))",
                arguments: SchemaDatabase.arguments(extra))
            counters[table.name] = db.lastInsertedRowID
            try db.execute(sql: "DELETE FROM \(SQL.quote(table.name)) WHERE id = ?", arguments: [db.lastInsertedRowID])
        }
        return (rows, counters)
    }

    /// What `value` of a column becomes in `column` (widened, or its default where it may no longer be `NULL`).
    static func expected(_ value: StorageValue, from old: ColumnDesign, to column: ColumnDesign) -> StorageValue {
        if value == .null && column.notNull, let defaultSQL = column.defaultSQL { return literalValue(defaultSQL, column.type) }
        if case .integer(let v) = value, column.type == "REAL" { return .real(Double(v)) }
        return value
    }

    static func literalValue(_ sql: String, _ type: String) -> StorageValue {
        // Evaluated by SQLite, the way a DEFAULT is (into a column of that type).
        let queue = try! DatabaseQueue()
        return try! queue.write { db in
            try db.execute(sql: "CREATE TABLE t (v \(type)) STRICT")
            try db.execute(sql: "INSERT INTO t (v) VALUES (\(sql))")
            return StorageValue(databaseValue: try DatabaseValue.fetchOne(db, sql: "SELECT v FROM t")!)
        }
    }

    @Test func randomModelPairsKeepEveryRowAndValue() throws {
        let seed = TestSeed.make()
        print("InferredMigrationPropertyTests seed: \(seed) (replay with \(TestSeed.variable)=\(seed))")
        var generator = Generator(rng: SeededGenerator(seed: seed))
        for round in 0..<(60 * TestSeed.scale) {
            let old = generator.model()
            let new = generator.change(old)
            let queue = try DatabaseQueue()
            let (rows, counters) = try queue.write { db in
                for table in old { for statement in table.createStatements { try db.execute(sql: statement) } }
                try SchemaHistory.append(db, version: "1", model: old, renames: [], types: [:])
                return try Self.fill(db, old, &generator)
            }
            let context = "seed \(seed) round \(round)\nold: \(SchemaHistory.canonical(old))\nnew: \(new.map { "\($0.originalName ?? "") -> \($0.name): \($0.columns.map { "\($0.originalName ?? "")->\($0.name) \($0.type)\($0.notNull ? "!" : "")\($0.references.map { "@" + $0 } ?? "")" })" })"
            do {
                try queue.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA foreign_keys = OFF")
                    try db.inTransaction {
                        let history = try SchemaHistory.read(db)
                        try InferredMigration(target: new, owned: SchemaHistory.owned(history, [new])).apply(db)
                        return .commit
                    }
                    try db.execute(sql: "PRAGMA foreign_keys = ON")
                }
            } catch {
                Issue.record("migration failed: \(error)\n\(context)")
                return
            }
            try queue.write { db in
                // The schema is the design's, and nothing of the old model is left over.
                let tables = Set(try StoreTable.names(db)).subtracting([SchemaHistory.table])
                #expect(tables == Set(new.map(\.name)), "\(context)")
                for design in new {
                    guard let table = try StoreTable.read(db, design.name) else { continue }
                    #expect(table.hasIntegerID, "\(context)")
                    #expect(Set(table.columns.map(\.name).filter { $0 != "id" }) == Set(design.columns.map(\.name)),
                            "\(design.name) columns \(table.columns.map(\.name))\n\(context)")
                    for column in design.columns {
                        let found = table.column(column.name)
                        #expect(found?.type == column.type && found?.notNull == column.notNull
                                && table.references[column.name] == column.references,
                                "\(design.name).\(column.name): \(String(describing: found)) \(String(describing: table.references[column.name]))\n\(context)")
                    }
                    let indexes = Set(table.indexes.filter(\.isCreated).map(\.name))
                    #expect(indexes == Set(design.indexes.map(\.name)), "\(design.name) indexes \(indexes)\n\(context)")
                    // Every row, every value.
                    let source = design.originalName ?? design.name
                    guard let oldDesign = old.first(where: { $0.name == source }) else {
                        #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM \(SQL.quote(design.name))") == 0)
                        continue
                    }
                    let stored = try Row.fetchAll(db, sql: "SELECT * FROM \(SQL.quote(design.name))")
                    let before = rows[source] ?? [:]
                    #expect(Set(stored.map { $0["id"] as Int64 }) == Set(before.keys), "\(design.name) ids\n\(context)")
                    for row in stored {
                        let id: Int64 = row["id"]
                        guard let values = before[id] else { continue }
                        for column in design.columns {
                            let got = StorageValue(databaseValue: row[column.name])
                            let want: StorageValue
                            if let oldColumn = oldDesign.column(column.originalName ?? column.name) {
                                want = Self.expected(values[oldColumn.name]!, from: oldColumn, to: column)
                            } else {
                                want = column.defaultSQL.map { Self.literalValue($0, column.type) } ?? .null
                            }
                            #expect(got == want, "\(design.name)[\(id)].\(column.name): \(got), expected \(want)\n\(context)")
                        }
                    }
                    // The counter: a new row gets an id past every id the old table gave.
                    if let counter = counters[source] {
                        let filler: [String: String] = ["INTEGER": "0", "REAL": "0.5", "TEXT": "''", "BLOB": "X''"]
                        let required = design.columns.filter(\.notNull)
                        try db.execute(sql: required.isEmpty ? "INSERT INTO \(SQL.quote(design.name)) DEFAULT VALUES"
                            : "INSERT INTO \(SQL.quote(design.name)) (\(required.map { SQL.quote($0.name) }.joined(separator: ", "))) VALUES (\(required.map { filler[$0.type]! }.joined(separator: ", ")))")
                        #expect(db.lastInsertedRowID > counter, "\(design.name) reused id \(db.lastInsertedRowID) <= \(counter)\n\(context)")
                    }
                }
                #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty, "\(context)")
            }
        }
    }
}
