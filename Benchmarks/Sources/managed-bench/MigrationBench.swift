// managed-bench, case 5: migrating a store of N rows when the declarations change (one attribute added
// with a default, one renamed), against the same change written by hand on raw SQLite.
//
// Ours: a store made with `ItemV1`, closed (its manager released), then opened with `ItemV2`: the open
// takes a copy of the store (SQLite's backup API, synced), infers `ALTER TABLE … ADD COLUMN` and
// `ALTER TABLE … RENAME COLUMN`, records the new model and checks the columns; all of it is timed,
// as an app would see it (with the default configuration, so with its integrity check at open). For
// comparison, the plain open of the store once migrated, with and without that check.
// Raw: a file with the same table and rows, opened with the same settings, and the two `ALTER TABLE`s a
// developer would write in one `BEGIN IMMEDIATE … COMMIT`; the open and the transaction are timed.
import BenchSupport
import Foundation
import GRDBSQLite
import ManagedStorage

@StorageEntity(name: "Item")
final class ItemV1 {
    var code: Int64
    var title: String
    var price: Double
    var note: String?
}

@StorageEntity(name: "Item")
final class ItemV2 {
    var code: Int64
    @Attribute(originalName: "title")
    var name: String
    var price: Double
    var note: String?
    @Attribute(default: 0)
    var stock: Int64
}

struct ItemRow: Sendable {
    var code: Int64
    var title: String
    var price: Double
    var note: String?
}

/// The table ManagedStorage makes for `ItemV1`, written out for the raw side.
let rawItemTable = """
    CREATE TABLE "Item" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "code" INTEGER NOT NULL, "title" TEXT NOT NULL,
    "price" REAL NOT NULL, "note" TEXT) STRICT
    """

/// The migration a developer would write by hand.
let rawItemMigration = """
    BEGIN IMMEDIATE;
    ALTER TABLE "Item" ADD COLUMN "stock" INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE "Item" RENAME COLUMN "title" TO "name";
    COMMIT
    """

extension RawSQLite {
    /// Inserts `items` in one `BEGIN IMMEDIATE` transaction.
    func insert(_ items: [ItemRow]) throws {
        try exec("BEGIN IMMEDIATE")
        let statement = try prepare(#"INSERT INTO "Item" ("code", "title", "price", "note") VALUES (?, ?, ?, ?)"#)
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        for item in items {
            sqlite3_bind_int64(statement, 1, item.code)
            sqlite3_bind_text(statement, 2, item.title, -1, transient)
            sqlite3_bind_double(statement, 3, item.price)
            if let note = item.note { sqlite3_bind_text(statement, 4, note, -1, transient) } else { sqlite3_bind_null(statement, 4) }
            guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
            sqlite3_reset(statement)
        }
        try exec("COMMIT")
    }

    /// The integers `sql`'s first row holds.
    func integers(_ sql: String) throws -> [Int64] {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw BenchError("\(sql): no row") }
        return (0..<sqlite3_column_count(statement)).map { sqlite3_column_int64(statement, $0) }
    }

    /// A copy of the whole file with SQLite's backup API in one step, then synced: what ManagedStorage
    /// does before migrating.
    func backup(to path: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let handle else {
            throw BenchError("cannot open \(path)")
        }
        defer { sqlite3_close_v2(handle) }
        guard let backup = sqlite3_backup_init(handle, "main", db, "main") else {
            throw BenchError("backup: \(String(cString: sqlite3_errmsg(handle)))")
        }
        let stepped = sqlite3_backup_step(backup, -1)
        sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE else { throw BenchError("backup: step returned \(stepped)") }
        let fd = open(path, O_RDONLY)
        if fd >= 0 { fsync(fd); close(fd) }
    }
}

/// Opens a manager on `configuration` with `entities`, runs `body`, releases it and waits until it is gone
/// (its pool closed, so the next open starts from the file alone). Returns the seconds the open took.
@MainActor func withManager(_ entities: [any StorageEntity.Type], _ configuration: StorageConfiguration,
                            _ body: (SQLiteStorageManager) throws -> Void = { _ in }) async throws -> Double {
    weak var opened: SQLiteStorageManager?
    var elapsed = 0.0
    do {
        let model = StorageModel(entities: entities)
        let start = clock.now
        let manager = try SQLiteStorageManager(model: model, configuration: configuration)
        elapsed = seconds(clock.now - start)
        opened = manager
        try body(manager)
    }
    let deadline = clock.now + .seconds(10)
    while opened != nil {
        guard clock.now < deadline else { throw BenchError("a manager of \(configuration.fileURL.path) was not released within 10 s") }
        try await Task.sleep(for: .milliseconds(5))
    }
    return elapsed
}

@MainActor func migrationBench() async {
    do {
        let n = options.rows
        let items: [ItemRow] = (0..<n).map { (i: Int) -> ItemRow in
            let price: Double = Double(i % 10_000) / 100
            let note: String? = i % 3 == 0 ? "note \(i)" : nil
            return ItemRow(code: Int64(i), title: "item \(i)", price: price, note: note)
        }
        let repetitions = 3
        var ours: [Double] = [], raw: [Double] = [], plain: [Double] = []
        for repetition in 1...repetitions {
            // The v1 store, and the same rows in the raw file.
            let configuration = StorageConfiguration(name: "Items", folder: try freshFolder())
            let file = configuration.fileURL.path
            _ = try await withManager([ItemV1.self], configuration) { manager in
                try manager.writeAndWait { storage in
                    for row in items {
                        let item = storage.insertNewObject(ofType: ItemV1.self)
                        item.code = row.code
                        item.title = row.title
                        item.price = row.price
                        item.note = row.note
                    }
                }
            }
            let rawFile = try freshFolder().appendingPathComponent("Items.sqlite").path
            do { try RawSQLite(path: rawFile, schema: rawItemTable).insert(items) }
            let rootQuery = #"SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = 'Item'"#
            let rootBefore = try RawSQLite(path: file, schema: nil).integers(rootQuery)[0]
            let sizeBefore = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0

            // Ours: the open that migrates, then a plain open of the migrated store.
            let migrating = try await withManager([ItemV2.self], configuration)
            let reopened = try await withManager([ItemV2.self], configuration)
            var unchecked = configuration
            unchecked.checksIntegrityAtOpen = false
            let reopenedUnchecked = try await withManager([ItemV2.self], unchecked)

            // Raw: open with the same settings, the two ALTER TABLEs in one transaction.
            var rawSeconds = 0.0
            do {
                let start = clock.now
                let connection = try RawSQLite(path: rawFile, schema: nil)
                try connection.exec(rawItemMigration)
                rawSeconds = seconds(clock.now - start)
            }
            ours.append(migrating); raw.append(rawSeconds); plain.append(reopened)

            // Both files must now hold the same rows in the new layout.
            let check = #"SELECT count(*), total("stock"), sum("name" = 'item ' || "code"), total("price") * 100 FROM "Item""#
            let oursCheck = try RawSQLite(path: file, schema: nil).integers(check)
            let rawCheck = try RawSQLite(path: rawFile, schema: nil).integers(check)
            guard oursCheck == rawCheck, oursCheck[0] == Int64(n), oursCheck[1] == 0, oursCheck[2] == Int64(n) else {
                throw BenchError("the migrated files differ: ours \(oursCheck), raw \(rawCheck) (count, stock, names kept, prices)")
            }
            let rootAfter = try RawSQLite(path: file, schema: nil).integers(rootQuery)[0]
            let sizeAfter = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            let backupLeft = FileManager.default.fileExists(atPath: file + ".before-migration")

            // For reference only: what the copy ManagedStorage takes first costs on its own (the raw file).
            let copy = rawFile + ".copy"
            let copySeconds = try time { try RawSQLite(path: rawFile, schema: nil).backup(to: copy) }
            try? FileManager.default.removeItem(atPath: copy)

            print(String(format: "migrate %d rows, one attribute added with a default and one renamed (run %d of %d): ManagedStorage %.4f s (open with the new model), raw SQLite %.4f s (open + ADD COLUMN + RENAME COLUMN in one transaction); ManagedStorage %.1fx raw's time, at %.0f%% of raw",
                         n, repetition, repetitions, migrating, rawSeconds, migrating / rawSeconds, 100 * rawSeconds / migrating))
            print(String(format: "  plain open of the migrated store: %.4f s (%.4f s with checksIntegrityAtOpen off); the migration's share of the open: %.4f s; a backup copy of the raw file alone (sqlite3_backup + fsync): %.4f s",
                         reopened, reopenedUnchecked, migrating - reopened, copySeconds))
            print("  Item table \(rootAfter == rootBefore ? "altered in place" : "REBUILT") (root page \(rootBefore) before, \(rootAfter) after); file \(sizeBefore) bytes before, \(sizeAfter) after; backup copy \(backupLeft ? "LEFT BEHIND" : "removed"); same rows as raw: yes")
        }
        print(String(format: "migrate %d rows, median of %d: ManagedStorage %.4f s, raw SQLite %.4f s; ManagedStorage %.1fx raw's time; plain open %.4f s",
                     n, repetitions, median(ours), median(raw), median(ours) / median(raw), median(plain)))
    } catch {
        print("migration: \(error)")
    }
}
