import Foundation
import GRDB
import ManagedStorage
import ManagedTestModel
import Testing
import TestSupport

/// A store whose tables do not fit the declarations is refused at open, with the entity and the column,
/// before any fetch (issue 32: a table without its "id" passed the old check, and every fetch then
/// failed with "no such column: id").
@Suite struct SchemaCheckTests {
    /// A store of the test model with a few notes, changed by `sql` (another program's connection,
    /// foreign keys off, as a hand-written migration would run), then opened again.
    func open(after sql: [String]) throws -> SQLiteStorageManager {
        let folder = try TemporaryFolder(prefix: "managed-schema")
        do {
            let manager = try SQLiteStorageManager(model: testModel, configuration: FaultTests.configuration(folder.url))
            try manager.writeAndWait { storage in
                let order = insertOrder(storage, id: 1)
                for n in 0..<3 {
                    let note = storage.insertNewObject(ofType: OrderNote.self)
                    note.text = "note \(n)"
                    note.order = order
                }
            }
        }
        let queue = try DatabaseQueue(path: folder.file("Store.sqlite").path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            for statement in sql { try db.execute(sql: statement) }
        }
        try queue.close()
        return try SQLiteStorageManager(model: testModel, configuration: FaultTests.configuration(folder.url))
    }

    /// Rebuilds OrderNote as `definition` (its rows copied where the columns allow).
    func rebuild(_ definition: String, copying columns: String = #""text", "order""#) -> [String] {
        [#"ALTER TABLE "OrderNote" RENAME TO "OldNote""#,
         #"DROP INDEX IF EXISTS "OrderNote_order""#,
         #"CREATE TABLE "OrderNote" ("# + definition + ")",
         #"INSERT INTO "OrderNote" ("# + columns + ") SELECT " + columns + #" FROM "OldNote""#,
         #"DROP TABLE "OldNote""#,
         #"CREATE INDEX "OrderNote_order" ON "OrderNote"("order")"#]
    }

    func expectDiffers(_ sql: [String], column: String?, found: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try open(after: sql)
            Issue.record("the store opened", sourceLocation: sourceLocation)
        } catch let error as StorageError {
            guard case .schemaDiffers(let entity, let reported, _, let description) = error else {
                Issue.record("\(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(entity == "OrderNote" && reported == column, "\(error)", sourceLocation: sourceLocation)
            #expect(description.contains(found), "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func anUnchangedStoreOpens() throws {
        let manager = try open(after: [])
        #expect(try manager.read { $0.countObjects(ofType: OrderNote.self) } == 3)
    }

    @Test func aTableWithoutItsIdIsRefused() {
        expectDiffers(rebuild(#""text" TEXT NOT NULL, "order" INTEGER REFERENCES "Order"("id") DEFERRABLE INITIALLY DEFERRED"#),
                      column: "id", found: "missing")
        expectDiffers(rebuild(#""id" TEXT PRIMARY KEY, "text" TEXT NOT NULL, "order" INTEGER REFERENCES "Order"("id")"#),
                      column: "id", found: "TEXT PRIMARY KEY")
    }

    @Test func aColumnOfAnotherTypeOrNullabilityIsRefused() {
        expectDiffers(rebuild(#""id" INTEGER PRIMARY KEY AUTOINCREMENT, "text" BLOB NOT NULL, "order" INTEGER REFERENCES "Order"("id")"#),
                      column: "text", found: "BLOB")
        expectDiffers(rebuild(#""id" INTEGER PRIMARY KEY AUTOINCREMENT, "text" TEXT, "order" INTEGER REFERENCES "Order"("id")"#),
                      column: "text", found: "TEXT")
    }

    @Test func aToOneWithoutItsReferenceOrIndexIsRefused() {
        expectDiffers(rebuild(#""id" INTEGER PRIMARY KEY AUTOINCREMENT, "text" TEXT NOT NULL, "order" INTEGER"#),
                      column: "order", found: "no such reference")
        expectDiffers([#"DROP INDEX "OrderNote_order""#], column: "order", found: "no index")
    }

    @Test func aMissingTableOrColumnIsRefused() throws {
        expectDiffers([#"DROP TABLE "OrderNote""#], column: nil, found: "missing")
        #expect(throws: StorageError.schemaMismatch(entity: "OrderNote", missingColumns: ["text"])) {
            _ = try open(after: rebuild(#""id" INTEGER PRIMARY KEY AUTOINCREMENT, "order" INTEGER REFERENCES "Order"("id")"#,
                                        copying: #""order""#))
        }
    }

    @Test func anExtraColumnIsRefusedOnlyWhenInsertsWouldFail() throws {
        // Nullable, or with a default: every insert still works.
        let manager = try open(after: [#"ALTER TABLE "OrderNote" ADD COLUMN "extra" TEXT"#,
                                       #"ALTER TABLE "OrderNote" ADD COLUMN "flag" INTEGER NOT NULL DEFAULT 0"#])
        try manager.writeAndWait { storage in storage.insertNewObject(ofType: OrderNote.self).text = "new" }
        #expect(try manager.read { $0.countObjects(ofType: OrderNote.self) } == 4)
        expectDiffers(rebuild(#""id" INTEGER PRIMARY KEY AUTOINCREMENT, "text" TEXT NOT NULL, "order" INTEGER REFERENCES "Order"("id"), "required" TEXT NOT NULL"#,
                              copying: #""text", "order", "required""#).map { $0.replacingOccurrences(of: #"SELECT "text", "order", "required""#, with: #"SELECT "text", "order", 'x'"#) },
                      column: "required", found: "without a default")
    }
}
