import Foundation
import GRDB
import ManagedStorage
import ManagedTestModel
import Testing
import TestSupport

/// Damaged files, failed and newer migrations, a full disk and a read-only folder: each a typed error,
/// the previous data intact or moved aside, never a crash.
@Suite struct FaultTests {
    static func configuration(_ folder: URL) -> StorageConfiguration {
        var configuration = StorageConfiguration(name: "Store", folder: folder)
        configuration.onError = { _ in }
        return configuration
    }

    /// A store of `count` orders in `folder`, closed again (its log checkpointed into the file).
    static func makeStore(_ folder: URL, orders count: Int) throws {
        let manager = try SQLiteStorageManager(model: testModel, configuration: configuration(folder))
        try manager.writeAndWait { storage in
            for id in 1...count {
                let order = storage.insertNewObject(ofType: Order.self)
                order.orderID = Int64(id)
                order.customerNote = String(repeating: "x", count: 200)
            }
        }
    }

    static func orderCount(_ folder: URL, model: StorageModel = testModel) throws -> Int {
        try SQLiteStorageManager(model: model, configuration: configuration(folder)).read { $0.countObjects(ofType: Order.self) }
    }

    @Test func failedMigrationLeavesTheStoreExactlyAsItWas() throws {
        struct Refused: Error {}
        let folder = try TemporaryFolder(prefix: "managed-migration")
        try Self.makeStore(folder.url, orders: 50)
        let file = folder.file("Store.sqlite")
        let failing = StorageModel(entities: testModel.entities, versions: [
            StorageSchemaVersion("2-add-table") { db in try db.execute(sql: "CREATE TABLE extra (x INTEGER)") },
            StorageSchemaVersion("3-move-notes") { db in
                try db.execute(sql: #"UPDATE "Order" SET "customerNote" = NULL"#)
                throw Refused()
            },
        ])
        #expect(throws: StorageError.migrationFailed(version: "3-move-notes", underlying: "Refused()")) {
            try SQLiteStorageManager(model: failing, configuration: Self.configuration(folder.url))
        }
        let queue = try DatabaseQueue(path: file.path)
        let (tables, migrations, notes) = try queue.read { db in
            (try db.tableExists("extra"), try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"),
             try Int.fetchOne(db, sql: #"SELECT count(*) FROM "Order" WHERE "customerNote" IS NOT NULL"#) ?? 0)
        }
        try queue.close()
        #expect(!tables && migrations == ["ManagedStorage.create"] && notes == 50, "neither version 2 nor 3 stayed")
        #expect(!FileManager.default.fileExists(atPath: file.path + ".before-migration"))
        // The fixed program migrates the same store.
        let fixed = StorageModel(entities: testModel.entities, versions: [
            StorageSchemaVersion("2-add-table") { db in try db.execute(sql: "CREATE TABLE extra (x INTEGER)") },
        ])
        #expect(try Self.orderCount(folder.url, model: fixed) == 50)
    }

    @Test func storeWrittenByANewerProgramIsATypedError() throws {
        let folder = try TemporaryFolder(prefix: "managed-newer")
        let newer = StorageModel(entities: testModel.entities, versions: [
            StorageSchemaVersion("2-index") { db in try db.execute(sql: #"CREATE INDEX order_status ON "Order"("status")"#) },
        ])
        _ = try SQLiteStorageManager(model: newer, configuration: Self.configuration(folder.url))
        let path = folder.file("Store.sqlite").path
        #expect(throws: StorageError.schemaNewerThanProgram(file: path, unknownVersions: ["2-index"])) {
            try SQLiteStorageManager(model: testModel, configuration: Self.configuration(folder.url))
        }
        #expect(try Self.orderCount(folder.url, model: newer) == 0, "the newer program still opens it")
    }
}
