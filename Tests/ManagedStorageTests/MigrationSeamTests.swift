import Foundation
import GRDB
import ManagedStorage
import ManagedTestModel
import Testing
import TestSupport

// Issue 45: what was lost where migrations meet other features. Each model below is one release.

@StorageEntity(name: "Alpha") final class SeamAlpha1 { var n: Int64 }
@StorageEntity(name: "Beta") final class SeamBeta1 { var n: Int64 }
@StorageEntity(name: "Beta", originalName: "Alpha") final class SeamBetaFromAlpha { var n: Int64 }
@StorageEntity(name: "Gamma", originalName: "Beta") final class SeamGammaFromBeta { var n: Int64 }
@StorageEntity(name: "Alpha", originalName: "Beta") final class SeamAlphaFromBeta { var n: Int64 }

@StorageEntity(name: "Product") final class SeamProduct1 {
    var price: Double
    var grossPrice: Double
}
@StorageEntity(name: "Product") final class SeamProduct2 {
    @Attribute(originalName: "price", default: 0.0)
    var netPrice: Double
    @Attribute(originalName: "grossPrice")
    var price: Double
}
@StorageEntity(name: "Product") final class SeamProductSwapped {
    @Attribute(originalName: "grossPrice")
    var price: Double
    @Attribute(originalName: "price")
    var grossPrice: Double
}

enum SeamStatus: String, CaseIterable, StorageAttribute { case open, closed }
@StorageEntity(name: "Ticket") final class SeamTicketText { var status: String; var count: Int; var big: Int64 }
@StorageEntity(name: "Ticket") final class SeamTicketEnum { var status: SeamStatus; var count: Int; var big: Int64 }
@StorageEntity(name: "Ticket") final class SeamTicketSmall { var status: String; var count: Int8; var big: Int64 }
@StorageEntity(name: "Ticket") final class SeamTicketDouble { var status: String; var count: Int; var big: Double }

@Suite struct MigrationSeamTests {
    static func configuration(_ folder: URL) -> StorageConfiguration {
        var configuration = StorageConfiguration(name: "Store", folder: folder)
        configuration.onError = { _ in }
        return configuration
    }

    static func numbers(_ folder: URL, _ table: String) throws -> [Int64] {
        let queue = try DatabaseQueue(path: folder.appendingPathComponent("Store.sqlite").path)
        defer { try? queue.close() }
        return try queue.read { db in
            guard try db.tableExists(table) else { return [] }
            return try Int64.fetchAll(db, sql: "SELECT n FROM \"\(table)\" ORDER BY n")
        }
    }

    /// Item 3: `Beta` from `Alpha` and `Gamma` from `Beta`, in either declaration order, and a swap.
    @Test(arguments: [false, true])
    func chainedEntityRenamesKeepEveryRow(gammaFirst: Bool) throws {
        let temp = try TemporaryFolder(prefix: "managed-chain")
        let old = try SQLiteStorageManager(model: StorageModel(entities: [SeamAlpha1.self, SeamBeta1.self]),
                                           configuration: Self.configuration(temp.url))
        try old.writeAndWait { storage in
            for n in 0..<40 { storage.insertNewObject(ofType: SeamAlpha1.self).n = Int64(n) }
            for n in 100..<125 { storage.insertNewObject(ofType: SeamBeta1.self).n = Int64(n) }
        }
        let entities: [any StorageEntity.Type] = gammaFirst ? [SeamGammaFromBeta.self, SeamBetaFromAlpha.self]
                                                            : [SeamBetaFromAlpha.self, SeamGammaFromBeta.self]
        let new = try SQLiteStorageManager(model: StorageModel(entities: entities), configuration: Self.configuration(temp.url))
        #expect(try new.read { $0.countObjects(ofType: SeamBetaFromAlpha.self) } == 40)
        #expect(try Self.numbers(temp.url, "Beta") == (0..<40).map(Int64.init), "Alpha's rows are Beta's now")
        #expect(try Self.numbers(temp.url, "Gamma") == (100..<125).map(Int64.init), "Beta's rows are Gamma's now")
        #expect(try Self.numbers(temp.url, "Alpha").isEmpty)
        // Opened again, nothing moves a second time.
        _ = try SQLiteStorageManager(model: StorageModel(entities: entities), configuration: Self.configuration(temp.url))
        #expect(try Self.numbers(temp.url, "Beta") == (0..<40).map(Int64.init))
    }

    @Test func aSwapOfTwoEntitiesMovesTheirRowsOnce() throws {
        let temp = try TemporaryFolder(prefix: "managed-swap")
        let old = try SQLiteStorageManager(model: StorageModel(entities: [SeamAlpha1.self, SeamBeta1.self]),
                                           configuration: Self.configuration(temp.url))
        try old.writeAndWait { storage in
            for n in 0..<4 { storage.insertNewObject(ofType: SeamAlpha1.self).n = Int64(n) }
            for n in 100..<102 { storage.insertNewObject(ofType: SeamBeta1.self).n = Int64(n) }
        }
        let swapped = StorageModel(entities: [SeamAlphaFromBeta.self, SeamBetaFromAlpha.self])
        for _ in 0..<2 {
            _ = try SQLiteStorageManager(model: swapped, configuration: Self.configuration(temp.url))
            #expect(try Self.numbers(temp.url, "Alpha") == [100, 101])
            #expect(try Self.numbers(temp.url, "Beta") == [0, 1, 2, 3])
        }
    }

    /// Item 3, attributes: `netPrice` from `price` while `price` takes `grossPrice`; and a swap.
    @Test func chainedAttributeRenamesKeepEveryValue() throws {
        let temp = try TemporaryFolder(prefix: "managed-attribute-chain")
        let old = try SQLiteStorageManager(model: StorageModel(entities: [SeamProduct1.self]), configuration: Self.configuration(temp.url))
        try old.writeAndWait { storage in
            let product = storage.insertNewObject(ofType: SeamProduct1.self)
            product.price = 10
            product.grossPrice = 12
        }
        let new = try SQLiteStorageManager(model: StorageModel(entities: [SeamProduct2.self]), configuration: Self.configuration(temp.url))
        let values = try new.read { storage in storage.allObjects(ofType: SeamProduct2.self).map { [$0.netPrice, $0.price] } }
        #expect(values == [[10, 12]], "netPrice holds the old price, price the old gross price")

        let other = try TemporaryFolder(prefix: "managed-attribute-swap")
        try SQLiteStorageManager(model: StorageModel(entities: [SeamProduct1.self]), configuration: Self.configuration(other.url))
            .writeAndWait { storage in
                let product = storage.insertNewObject(ofType: SeamProduct1.self)
                product.price = 10
                product.grossPrice = 12
            }
        for _ in 0..<2 {
            let swapped = try SQLiteStorageManager(model: StorageModel(entities: [SeamProductSwapped.self]),
                                                   configuration: Self.configuration(other.url))
            let pair = try swapped.read { storage in storage.allObjects(ofType: SeamProductSwapped.self).map { [$0.price, $0.grossPrice] } }
            #expect(pair == [[12, 10]], "swapped once, and not back at the next open")
        }
    }

    private func ticketStore(_ folder: URL, status: String, count: Int, big: Int64) throws {
        try SQLiteStorageManager(model: StorageModel(entities: [SeamTicketText.self]), configuration: Self.configuration(folder))
            .writeAndWait { storage in
                let ticket = storage.insertNewObject(ofType: SeamTicketText.self)
                ticket.status = status
                ticket.count = count
                ticket.big = big
            }
    }

    /// Item 4: a value the new type cannot hold fails the migration, typed, and the store is unchanged.
    @Test func aTypeChangeThatCannotHoldAStoredValueFailsTheMigration() throws {
        let temp = try TemporaryFolder(prefix: "managed-type-change")
        let enumFolder = temp.folder("enum"), smallFolder = temp.folder("small"), doubleFolder = temp.folder("double")
        try ticketStore(enumFolder, status: "pending", count: 1, big: 1)
        try ticketStore(smallFolder, status: "open", count: 300, big: 1)
        try ticketStore(doubleFolder, status: "open", count: 1, big: (1 << 53) + 1)
        #expect(throws: StorageError.self) { try SQLiteStorageManager(model: StorageModel(entities: [SeamTicketEnum.self]), configuration: Self.configuration(enumFolder)) }
        #expect(throws: StorageError.self) { try SQLiteStorageManager(model: StorageModel(entities: [SeamTicketSmall.self]), configuration: Self.configuration(smallFolder)) }
        #expect(throws: StorageError.self) { try SQLiteStorageManager(model: StorageModel(entities: [SeamTicketDouble.self]), configuration: Self.configuration(doubleFolder)) }
        for (folder, model, attribute) in [(enumFolder, SeamTicketEnum.self as any StorageEntity.Type, "status"),
                                           (smallFolder, SeamTicketSmall.self, "count"), (doubleFolder, SeamTicketDouble.self, "big")] {
            do {
                _ = try SQLiteStorageManager(model: StorageModel(entities: [model]), configuration: Self.configuration(folder))
                Issue.record("\(attribute): the migration succeeded")
            } catch StorageError.migrationCannotConvert(let entity, let name, let rows, let example) {
                #expect(entity == "Ticket" && name == attribute && rows == 1, "\(example)")
            } catch {
                Issue.record("\(attribute): \(error)")
            }
            // The old program still reads it whole.
            let old = try SQLiteStorageManager(model: StorageModel(entities: [SeamTicketText.self]), configuration: Self.configuration(folder))
            #expect(try old.read { $0.allObjects(ofType: SeamTicketText.self).count } == 1)
        }
        // A value every case of the new type holds migrates.
        let fine = temp.folder("fine")
        try ticketStore(fine, status: "closed", count: 1, big: 1)
        let migrated = try SQLiteStorageManager(model: StorageModel(entities: [SeamTicketEnum.self]), configuration: Self.configuration(fine))
        #expect(try migrated.read { $0.allObjects(ofType: SeamTicketEnum.self).map(\.status) } == [.closed])
    }

    /// Item 1: a manager still open with the old model after another one migrated the store is refused
    /// at its next operation, and writes nothing.
    @Test func aManagerOfTheOldModelIsRefusedOnceAnotherMigrated() throws {
        let temp = try TemporaryFolder(prefix: "managed-old-open")
        let old = try SQLiteStorageManager(model: ledgerModelV1, configuration: Self.configuration(temp.url))
        try fillLedgerV1(old, entries: 10)
        let new = try SQLiteStorageManager(model: ledgerModelV2, configuration: Self.configuration(temp.url))
        #expect(try new.read { $0.countObjects(ofType: EntryV2.self) } == 10)
        #expect(throws: StorageError.self) {
            try old.writeAndWait { storage in storage.insertNewObject(ofType: EntryV1.self).title = "late" }
        }
        do {
            _ = try old.read { $0.countObjects(ofType: EntryV1.self) }
            Issue.record("the old manager read a migrated store")
        } catch StorageError.schemaNewerThanProgram {
        }
        #expect(try new.read { $0.countObjects(ofType: EntryV2.self) } == 10, "nothing written by the old manager")
        // Another manager of the same model that opened before keeps working.
        try new.writeAndWait { storage in storage.insertNewObject(ofType: EntryV2.self).label = "new" }
    }

    /// Item 7: an earlier toolkit's pre-migration copy and its temporary files are removed at open, and
    /// never restored over the store.
    @Test func anEarlierToolkitsCopyIsRemovedNotRestored() throws {
        let temp = try TemporaryFolder(prefix: "managed-leftover")
        let manager = try SQLiteStorageManager(model: ledgerModelV1, configuration: Self.configuration(temp.url))
        try fillLedgerV1(manager, entries: 20)
        let file = temp.file("Store.sqlite")
        let queue = try DatabaseQueue(path: file.path)
        try queue.backup(to: try DatabaseQueue(path: file.path + ".before-migration"))
        try queue.backup(to: try DatabaseQueue(path: temp.file(".Store.sqlite.before-migration.tmp-99999").path))
        try queue.write { db in try db.execute(sql: #"DELETE FROM "Entry" WHERE "code" >= 5"#) }
        try queue.close()
        let reopened = try SQLiteStorageManager(model: ledgerModelV1, configuration: Self.configuration(temp.url))
        #expect(try reopened.read { $0.countObjects(ofType: EntryV1.self) } == 5, "the store's own commits, not the copy's")
        #expect(!FileManager.default.fileExists(atPath: file.path + ".before-migration"))
        #expect(!FileManager.default.fileExists(atPath: temp.file(".Store.sqlite.before-migration.tmp-99999").path))
    }

    /// Item 8: WooCommerce's recovery, opted into: the store moved aside, kept, reported; an empty one opened.
    @Test func anIncompatibleStoreIsMovedAsideWhenTheConfigurationSaysSo() throws {
        let temp = try TemporaryFolder(prefix: "managed-incompatible")
        try ticketStore(temp.url, status: "pending", count: 1, big: 1)
        #expect(throws: StorageError.self) {
            try SQLiteStorageManager(model: StorageModel(entities: [SeamTicketEnum.self]), configuration: Self.configuration(temp.url))
        }
        var configuration = Self.configuration(temp.url)
        configuration.incompatibleStore = .moveAsideAndStartEmpty
        let manager = try SQLiteStorageManager(model: StorageModel(entities: [SeamTicketEnum.self]), configuration: configuration)
        #expect(try manager.read { $0.countObjects(ofType: SeamTicketEnum.self) } == 0)
        guard case .incompatibleStoreMovedAside(_, let movedTo, let cause)? = manager.movedAsideAtOpen else {
            Issue.record("not reported: \(String(describing: manager.movedAsideAtOpen))")
            return
        }
        #expect(cause.contains("Ticket.status"), "\(cause)")
        #expect(URL(fileURLWithPath: movedTo).lastPathComponent.hasPrefix("Store.sqlite.incompatible-"))
        let queue = try DatabaseQueue(path: movedTo)
        #expect(try queue.read { db in try String.fetchAll(db, sql: #"SELECT "status" FROM "Ticket""#) } == ["pending"])
        try queue.close()
    }
}
