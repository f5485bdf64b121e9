import Foundation
import GRDB
import ManagedStorage
import Synchronization
import Testing
import TestSupport

// Three versions of one model, as an app would ship them. Each version's classes keep the table names
// with `@StorageEntity(name:)`; in an app only the current version exists as code (or old ones nested
// in an enum, for custom stages).

@StorageEntity(name: "Person")
final class PersonV1 {
    var name: String
    var age: Int
    @Relationship(deleteRule: .cascade)
    var pets: [PetV1]
}

@StorageEntity(name: "Pet")
final class PetV1 {
    var name: String
    var owner: PersonV1?
}

/// Version 2: an attribute renamed, one added with a default, one optional added, an entity renamed
/// (with its relationship), an entity added.
@StorageEntity(name: "Person")
final class PersonV2 {
    @Attribute(originalName: "name")
    var fullName: String
    var age: Int
    @Attribute(default: "Paris")
    var city: String
    var nickname: String?
    @Relationship(deleteRule: .cascade)
    var pets: [AnimalV2]
}

@StorageEntity(name: "Animal", originalName: "Pet")
final class AnimalV2 {
    var name: String
    @Relationship(originalName: "owner")
    var person: PersonV2?
    var tag: TagV2?
}

@StorageEntity(name: "Tag")
final class TagV2 {
    var label: String
    var animals: [AnimalV2]
}

/// Version 3: attributes, a relationship and two entities removed.
@StorageEntity(name: "Person")
final class PersonV3 {
    var fullName: String
    var city: String
}

/// Version 2 done wrong: a non-optional attribute added without a default.
@StorageEntity(name: "Person")
final class PersonNoDefault {
    var name: String
    var age: Int
    var pets: [PetV1]
    var email: String
}

@StorageEntity(name: "Contact")
final class ContactV1 {
    var name: String
    var phone: String?
}

/// A change inference cannot make: one name split in two (filled by a custom stage).
@StorageEntity(name: "Contact")
final class ContactV2 {
    var givenName: String
    var familyName: String
    var phone: String?
}

let modelV1 = StorageModel(entities: [PersonV1.self, PetV1.self])
let modelV2 = StorageModel(entities: [PersonV2.self, AnimalV2.self, TagV2.self])
let modelV3 = StorageModel(entities: [PersonV3.self])

/// Inferred migrations, renames, custom stages and SQL versions on populated stores: every row and
/// relationship kept, and a failing migration leaves the store exactly as it was (issue 32).
@Suite struct MigrationTests {
    static func configuration(_ folder: URL) -> StorageConfiguration {
        var configuration = StorageConfiguration(name: "Store", folder: folder)
        configuration.onError = { _ in }
        return configuration
    }

    /// A version-1 store of `people` people with two pets each.
    static func makeV1Store(_ folder: URL, people: Int = 40) throws {
        let manager = try SQLiteStorageManager(model: modelV1, configuration: configuration(folder))
        try manager.writeAndWait { storage in
            for n in 0..<people {
                let person = storage.insertNewObject(ofType: PersonV1.self)
                person.name = "Person \(n)"
                person.age = 20 + n
                for p in 0..<2 {
                    let pet = storage.insertNewObject(ofType: PetV1.self)
                    pet.name = "Pet \(n)-\(p)"
                    pet.owner = person
                }
            }
        }
    }

    /// Every table's schema and rows, in order: what "exactly as it was" compares.
    static func dump(_ folder: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: folder.appendingPathComponent("Store.sqlite").path)
        defer { try? queue.close() }
        return try queue.read { db in
            var lines = try String.fetchAll(db, sql: "SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_schema ORDER BY type, name")
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name") {
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\" ORDER BY rowid") {
                    lines.append("\(table): \(row)")
                }
            }
            return lines
        }
    }

    static func columns(_ folder: URL, _ table: String) throws -> [String] {
        let queue = try DatabaseQueue(path: folder.appendingPathComponent("Store.sqlite").path)
        defer { try? queue.close() }
        return try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]) }
    }

    static func tables(_ folder: URL) throws -> Set<String> {
        let queue = try DatabaseQueue(path: folder.appendingPathComponent("Store.sqlite").path)
        defer { try? queue.close() }
        return try queue.read { db in
            Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite%'"))
        }
    }

    @Test func addedRenamedAndNewEntitiesKeepEveryRowAndRelationship() throws {
        let folder = try TemporaryFolder(prefix: "managed-migrate")
        try Self.makeV1Store(folder.url)
        let manager = try SQLiteStorageManager(model: modelV2, configuration: Self.configuration(folder.url))
        let people = try manager.read { storage in
            storage.allObjects(ofType: PersonV2.self, sortedBy: [SortDescriptor(\.age)]).map { person in
                (person.fullName, person.age, person.city, person.nickname,
                 person.pets.map(\.name).sorted(), person.pets.map { $0.person?.fullName })
            }
        }
        #expect(people.count == 40)
        for (n, person) in people.enumerated() {
            #expect(person.0 == "Person \(n)" && person.1 == 20 + n, "renamed attribute kept: \(person)")
            #expect(person.2 == "Paris" && person.3 == nil, "added attributes: the declared default, and nil")
            #expect(person.4 == ["Pet \(n)-0", "Pet \(n)-1"], "renamed entity and relationship kept their links")
            #expect(person.5 == ["Person \(n)", "Person \(n)"])
        }
        // The new entity and relationship work, and a new object gets the declared default.
        try manager.writeAndWait { storage in
            let tag = storage.insertNewObject(ofType: TagV2.self)
            tag.label = "cats"
            for animal in storage.allObjects(ofType: AnimalV2.self).prefix(3) { animal.tag = tag }
            let person = storage.insertNewObject(ofType: PersonV2.self)
            person.fullName = "New"
        }
        let (tagged, newCity) = try manager.read { storage in
            (storage.firstObject(ofType: TagV2.self, matching: nil)?.animals.count,
             storage.firstObject(ofType: PersonV2.self, matching: #Predicate { $0.fullName == "New" })?.city)
        }
        #expect(tagged == 3 && newCity == "Paris")
        #expect(try Self.tables(folder.url).isSuperset(of: ["Person", "Animal", "Tag"]))
        #expect(try !Self.tables(folder.url).contains("Pet"))
        #expect(try Self.columns(folder.url, "Animal") == ["id", "name", "person", "tag"])
    }

    @Test func removedAttributesRelationshipsAndEntitiesAreDropped() throws {
        let folder = try TemporaryFolder(prefix: "managed-migrate")
        try Self.makeV1Store(folder.url, people: 10)
        _ = try SQLiteStorageManager(model: modelV2, configuration: Self.configuration(folder.url))
        let manager = try SQLiteStorageManager(model: modelV3, configuration: Self.configuration(folder.url))
        let names = try manager.read { storage in
            storage.allObjects(ofType: PersonV3.self, sortedBy: [SortDescriptor(\.fullName)]).map(\.fullName)
        }
        #expect(names.count == 10 && names.first == "Person 0")
        #expect(try Self.columns(folder.url, "Person") == ["id", "fullName", "city"])
        let tables = try Self.tables(folder.url)
        #expect(!tables.contains("Animal") && !tables.contains("Tag") && !tables.contains("Pet"))
    }

    @Test func aNonOptionalAttributeWithoutDefaultIsATypedErrorAndChangesNothing() throws {
        let folder = try TemporaryFolder(prefix: "managed-migrate")
        try Self.makeV1Store(folder.url, people: 5)
        let before = try Self.dump(folder.url)
        #expect(throws: StorageError.migrationNeedsDefault(entity: "Person", attribute: "email")) {
            try SQLiteStorageManager(model: StorageModel(entities: [PersonNoDefault.self, PetV1.self]),
                                     configuration: Self.configuration(folder.url))
        }
        #expect(try Self.dump(folder.url) == before)
        #expect(!FileManager.default.fileExists(atPath: folder.file("Store.sqlite.before-migration").path))
        // The same store still opens with its own model.
        #expect(try SQLiteStorageManager(model: modelV1, configuration: Self.configuration(folder.url))
            .read { $0.countObjects(ofType: PetV1.self) } == 10)
    }

    @Test func anOlderProgramRefusesAStoreANewerOneMigrated() throws {
        let folder = try TemporaryFolder(prefix: "managed-migrate")
        try Self.makeV1Store(folder.url, people: 3)
        _ = try SQLiteStorageManager(model: modelV2, configuration: Self.configuration(folder.url))
        let before = try Self.dump(folder.url)
        let refused: StorageError?
        do {
            _ = try SQLiteStorageManager(model: modelV1, configuration: Self.configuration(folder.url))
            refused = nil
        } catch {
            refused = error
        }
        var isNewer = false
        if case .schemaNewerThanProgram? = refused { isNewer = true }
        #expect(isNewer, "the version-1 program must refuse the version-2 store, not migrate it back: \(String(describing: refused))")
        #expect(try Self.dump(folder.url) == before)
        #expect(try SQLiteStorageManager(model: modelV2, configuration: Self.configuration(folder.url))
            .read { $0.countObjects(ofType: AnimalV2.self) } == 6)
    }

    @Test func reopeningAnUpToDateStoreChangesNothing() throws {
        let folder = try TemporaryFolder(prefix: "managed-migrate")
        try Self.makeV1Store(folder.url, people: 3)
        _ = try SQLiteStorageManager(model: modelV2, configuration: Self.configuration(folder.url))
        let before = try Self.dump(folder.url)
        _ = try SQLiteStorageManager(model: modelV2, configuration: Self.configuration(folder.url))
        #expect(try Self.dump(folder.url) == before)
        let history = try DatabaseQueue(path: folder.file("Store.sqlite").path).read { db in
            try Row.fetchAll(db, sql: "SELECT version, fingerprint FROM managedstorage_schema ORDER BY position")
        }
        #expect(history.count == 2, "one row for version 1's model, one for version 2's: \(history)")
        #expect(history.allSatisfy { ($0["fingerprint"] as String).count == 64 })
    }

    static let splitName = StorageSchemaVersion.custom("2-split-name", from: [ContactV1.self], to: [ContactV2.self]) { old, new in
        for contact in old.allObjects(ofType: ContactV1.self) {
            let parts = contact.name.split(separator: " ", maxSplits: 1).map(String.init)
            guard let copy = new.loadObject(ofType: ContactV2.self, with: contact.objectID) else { continue }
            copy.givenName = parts.first ?? ""
            copy.familyName = parts.count > 1 ? parts[1] : ""
        }
    }

    static func makeContacts(_ folder: URL) throws {
        let manager = try SQLiteStorageManager(model: StorageModel(entities: [ContactV1.self]), configuration: configuration(folder))
        try manager.writeAndWait { storage in
            for (n, name) in ["Ada Lovelace", "Alan Mathison Turing", "Plato"].enumerated() {
                let contact = storage.insertNewObject(ofType: ContactV1.self)
                contact.name = name
                contact.phone = n == 0 ? nil : "555-\(n)"
            }
        }
    }

    /// `recorded: false`: a store from before stores recorded their model (nothing is dropped by
    /// inference there, but the stage's own models say what its columns are).
    @Test(arguments: [true, false]) func aCustomStageSplitsANameInTwo(recorded: Bool) throws {
        let folder = try TemporaryFolder(prefix: "managed-migrate")
        try Self.makeContacts(folder.url)
        if !recorded {
            try DatabaseQueue(path: folder.file("Store.sqlite").path).write { db in try db.execute(sql: "DROP TABLE managedstorage_schema") }
        }
        let manager = try SQLiteStorageManager(model: StorageModel(entities: [ContactV2.self], versions: [Self.splitName]),
                                               configuration: Self.configuration(folder.url))
        let contacts = try manager.read { storage in
            storage.allObjects(ofType: ContactV2.self).map { [$0.givenName, $0.familyName, $0.phone ?? "-"] }
        }
        #expect(contacts == [["Ada", "Lovelace", "-"], ["Alan", "Mathison Turing", "555-1"], ["Plato", "", "555-2"]])
        #expect(try Self.columns(folder.url, "Contact") == ["id", "phone", "givenName", "familyName"]
                    || Self.columns(folder.url, "Contact") == ["id", "givenName", "familyName", "phone"])
        let notNull = try DatabaseQueue(path: folder.file("Store.sqlite").path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('Contact') WHERE \"notnull\" = 1 ORDER BY name")
        }
        #expect(notNull == ["familyName", "givenName"], "the stage's columns are non-optional once it filled them")
    }

    @Test func aFailingStageLeavesTheStoreExactlyAsItWas() throws {
        struct Refused: Error {}
        let folder = try TemporaryFolder(prefix: "managed-migrate")
        try Self.makeContacts(folder.url)
        let before = try Self.dump(folder.url)
        let failing = StorageSchemaVersion.custom("2-split-name", from: [ContactV1.self], to: [ContactV2.self]) { old, new in
            for contact in old.allObjects(ofType: ContactV1.self) {
                new.loadObject(ofType: ContactV2.self, with: contact.objectID)?.givenName = contact.name
                old.deleteObject(contact)
            }
            throw Refused()
        }
        #expect(throws: StorageError.migrationFailed(version: "2-split-name", underlying: "Refused()")) {
            try SQLiteStorageManager(model: StorageModel(entities: [ContactV2.self], versions: [failing]),
                                     configuration: Self.configuration(folder.url))
        }
        #expect(try Self.dump(folder.url) == before)
        // A stage that leaves a non-optional attribute empty is refused too, naming it.
        let incomplete = StorageSchemaVersion.custom("2-split-name", from: [ContactV1.self], to: [ContactV2.self]) { old, new in
            for contact in old.allObjects(ofType: ContactV1.self) {
                new.loadObject(ofType: ContactV2.self, with: contact.objectID)?.givenName = contact.name
            }
        }
        #expect(throws: StorageError.migrationNeedsValue(entity: "Contact", attribute: "familyName", rows: 3)) {
            try SQLiteStorageManager(model: StorageModel(entities: [ContactV2.self], versions: [incomplete]),
                                     configuration: Self.configuration(folder.url))
        }
        #expect(try Self.dump(folder.url) == before)
        // The fixed program migrates it.
        _ = try SQLiteStorageManager(model: StorageModel(entities: [ContactV2.self], versions: [Self.splitName]),
                                     configuration: Self.configuration(folder.url))
    }

    @Test func aNewStoreIsCreatedFromTheDeclarationsWithoutRunningStages() throws {
        let folder = try TemporaryFolder(prefix: "managed-migrate")
        let ran = Mutex(false)
        let stage = StorageSchemaVersion.custom("2-split-name", from: [ContactV1.self], to: [ContactV2.self]) { _, _ in
            ran.withLock { $0 = true }
        }
        let manager = try SQLiteStorageManager(model: StorageModel(entities: [ContactV2.self], versions: [stage]),
                                               configuration: Self.configuration(folder.url))
        #expect(try manager.read { $0.countObjects(ofType: ContactV2.self) } == 0)
        #expect(!ran.withLock { $0 })
    }

    @Test func anSQLVersionRunsWithoutGRDBBeforeTheInferredChanges() throws {
        let folder = try TemporaryFolder(prefix: "managed-migrate")
        try Self.makeV1Store(folder.url, people: 4)
        let sql = StorageSchemaVersion("2-upper") { db in
            // The store is still at version 1 here: "Person"."name", before the rename to fullName.
            try db.execute(sql: #"UPDATE "Person" SET "name" = upper("name") WHERE "age" >= ?"#, arguments: [.integer(22)])
            let rows = try db.fetchAll(sql: #"SELECT "name" FROM "Person" ORDER BY "id""#)
            #expect(rows.map { $0.first } == [.text("Person 0"), .text("Person 1"), .text("PERSON 2"), .text("PERSON 3")])
            #expect(try db.tableExists("Pet") && db.columns(in: "Pet") == ["id", "name", "owner"])
        }
        let model = StorageModel(entities: [PersonV2.self, AnimalV2.self, TagV2.self], versions: [sql])
        let names = try SQLiteStorageManager(model: model, configuration: Self.configuration(folder.url)).read { storage in
            storage.allObjects(ofType: PersonV2.self, sortedBy: [SortDescriptor(\.age)]).map(\.fullName)
        }
        #expect(names == ["Person 0", "Person 1", "PERSON 2", "PERSON 3"])
    }
}
