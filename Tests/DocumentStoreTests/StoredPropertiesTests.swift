import DocumentStore
import Foundation
import GRDB
import Testing
import TestSupport

/// The default `save(to:)` (stored properties by reflection, renamed or skipped by `propertyMapping`)
/// and its inverse, `PropertyReader`, through class hierarchies, fresh stores and bad types.
@Suite struct StoredPropertiesTests {
    static func register(_ persistence: Persistence) {
        persistence.register(persistableKind: Reflected.Animal.self)
        persistence.register(persistableKind: Reflected.Cat.self)
        persistence.register(persistableKind: Reflected.Kitten.self)
    }

    @Test func everyValueTypeIsStoredUnderItsMappedNameAndReadBack() throws {
        let store = try TestStore("reflect-values")
        let animal = Reflected.Animal(name: "Rex")
        animal.nickname = nil
        try store.persistence.save(animal)
        let body = try #require(try store.persistence.snapshot(animal.identifier)?.body)
        #expect(body == [
            "displayName": "Rex", "born": "2023-11-14T22:13:20.250Z", "tags": ["a", "b"],
            "scores": ["speed": 1.5, "size": 2.0], "nickname": nil, "weight": 3.5, "legs": 4, "vaccinated": true,
            "home": "https://example.com/home", "chip": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
            "extra": ["nested": [1, "two", nil]], "friend": nil,
        ], "renamed name, no identifier, no cachedSummary")
        let other = try store.reopen()
        Self.register(other)
        let loaded: Reflected.Animal = try #require(try other.load(animal.identifier))
        #expect(loaded !== animal)
        #expect(loaded.identifier == animal.identifier, "a let identifier, set by the store")
        #expect(loaded.name == "Rex" && loaded.born == animal.born && loaded.tags == ["a", "b"])
        #expect(loaded.scores == ["speed": 1.5, "size": 2] && loaded.nickname == nil && loaded.weight == 3.5)
        #expect(loaded.legs == 4 && loaded.vaccinated && loaded.home == animal.home && loaded.chip == animal.chip)
        #expect(loaded.extra == animal.extra && loaded.cachedSummary == "not stored" && loaded.friend == nil)
        // Saving what was loaded writes nothing new.
        let revision = other.revision(of: loaded)
        try other.save(loaded)
        #expect(other.revision(of: loaded) == revision)
        #expect(try store.count("changes") == 1)
    }

    @Test func subclassesRoundTripThroughAFreshStoreWithTheirSuperclassesProperties() throws {
        let store = try TestStore("reflect-hierarchy")
        Self.register(store.persistence)
        let mother = Reflected.Cat(name: "Tabby", lives: 7)
        mother.mood = "grumpy"
        let sibling = Reflected.Cat(name: "Tom", lives: 8)
        let kitten = Reflected.Kitten(name: "Kit", toy: "mouse", mother: mother)
        kitten.siblings = [sibling, mother]
        kitten.friend = sibling
        try store.persistence.save(kitten)
        #expect(try store.count("documents") == 3, "the kitten, its mother and sibling, in one save")
        let body = try #require(try store.persistence.snapshot(kitten.identifier))
        #expect(body.kind == "Kitten")
        #expect(body.body["favouriteToy"] == "mouse" && body.body["toy"] == nil, "the subclass's rename")
        #expect(body.body["displayName"] == "Kit" && body.body["lives"] == 9, "its superclasses' properties")
        #expect(body.body["mood"] == nil && body.body["cachedSummary"] == nil, "skipped at two levels")
        #expect(body.body["mother"] == .string(mother.identifier))
        #expect(body.body["siblings"] == [.string(sibling.identifier), .string(mother.identifier)])
        #expect(try store.persistence.snapshot(mother.identifier)?.kind == "Cat")

        let other = try store.reopen()
        Self.register(other)
        // Asked for as the base class: the stored kind picks the class.
        let animal: Reflected.Animal = try #require(try other.load(kitten.identifier))
        let loaded = try #require(animal as? Reflected.Kitten)
        #expect(loaded.identifier == kitten.identifier && loaded.name == "Kit" && loaded.lives == 9)
        #expect(loaded.toy == "mouse" && loaded.mood == "unknown")
        #expect(loaded.siblings.map(\.identifier) == [sibling.identifier, mother.identifier])
        #expect(loaded.friend === loaded.siblings.first, "one instance per document")
        #expect(!loaded.mother.isLoaded || loaded.mother.loaded === loaded.siblings.last)
        #expect(try loaded.mother.get() === loaded.siblings.last)
        #expect(try other.load(Reflected.Cat.self, mother.identifier)?.lives == 7)
        // A store that never registered Kitten cannot build one: a typed error.
        let third = try Persistence(configuration: store.persistence.configuration)
        third.register(persistableKind: Reflected.Animal.self)
        #expect(throws: DocumentStoreError.unregisteredKind(kind: "Kitten", identifier: kitten.identifier)) {
            let _: Reflected.Animal? = try third.load(kitten.identifier)
        }
    }

    @Test func anUnsupportedTypeIsATypedErrorNamingThePropertyAndTypeAndNothingIsWritten() throws {
        let store = try TestStore("reflect-unsupported")
        let withSet = Reflected.WithSet()
        #expect(throws: DocumentStoreError.unstorableProperty(identifier: withSet.identifier, kind: "WithSet",
                                                              property: "numbers", type: "Set<Int>")) {
            try store.persistence.save(withSet)
        }
        let nested = Reflected.WithNestedUnstorable()
        #expect(throws: DocumentStoreError.unstorableProperty(identifier: nested.identifier, kind: "WithNestedUnstorable",
                                                              property: "groups.g[2]", type: "NSObject")) {
            try store.persistence.save(nested)
        }
        // Inside a graph: the whole transaction rolls back.
        let animal = Reflected.Animal(name: "Ok")
        #expect(throws: DocumentStoreError.self) {
            try store.persistence.transaction { persistence in
                try persistence.save(animal)
                try persistence.save(withSet)
            }
        }
        #expect(try store.count("documents") == 0)
        let clash = Reflected.Clash()
        #expect(throws: DocumentStoreError.invalidValue(identifier: clash.identifier, path: "first",
                                                        reason: "Clash.first and Clash.second are both saved under this key; rename one in propertyMapping")) {
            try store.persistence.save(clash)
        }
        let nan = Reflected.Animal(name: "NaN")
        nan.weight = .nan
        #expect(throws: DocumentStoreError.self) { try store.persistence.save(nan) }
        #expect(try store.count("documents") == 0)
    }

    @Test func thePropertyReaderReportsMissingAndMistypedPropertiesByName() throws {
        let store = try TestStore("reflect-reader")
        Self.register(store.persistence)
        let animal = Reflected.Animal(identifier: "rex", name: "Rex")
        try store.persistence.save(animal)
        let body = try #require(try store.persistence.snapshot("rex")?.body)
        var missing = body
        if case .object(var fields) = missing { fields["displayName"] = nil; missing = .object(fields) }
        var mistyped = body
        if case .object(var fields) = mistyped { fields["tags"] = ["a", 2]; mistyped = .object(fields) }
        var dangling = body
        if case .object(var fields) = dangling { fields["friend"] = "nobody"; dangling = .object(fields) }
        // Planted as another program would write them.
        let queue = try DatabaseQueue(path: store.url.path)
        try queue.write { db in
            for (identifier, body) in [("missing", missing), ("mistyped", mistyped), ("dangling", dangling)] {
                try db.execute(sql: "INSERT INTO documents(id, kind, revision, deleted, body) VALUES (?, 'Animal', '1-x', 0, ?)",
                               arguments: [identifier, body.canonicalText])
            }
        }
        try queue.close()
        let other = try store.reopen()
        Self.register(other)
        #expect(throws: DocumentStoreError.unreadableProperty(identifier: "missing", property: "displayName",
                                                              expected: "String", found: "missing")) {
            let _: Reflected.Animal? = try other.load("missing")
        }
        #expect(throws: DocumentStoreError.unreadableProperty(identifier: "mistyped", property: "tags",
                                                              expected: "Array<String>", found: "[\"a\",2]")) {
            let _: Reflected.Animal? = try other.load("mistyped")
        }
        #expect(throws: DocumentStoreError.missingDocument(identifier: "nobody", kind: "Animal")) {
            let _: Reflected.Animal? = try other.load("dangling")
        }
    }

    @Test func anIdentifierTheStoreCannotSetIsATypedErrorUnlessInitReadsTheLoadingIdentifier() throws {
        let store = try TestStore("reflect-computed-id")
        let good = Reflected.ComputedIdentifier(key: "a", usesLoadingIdentifier: true)
        let bad = Reflected.ComputedIdentifier(key: "b", usesLoadingIdentifier: false)
        try store.persistence.save(good)
        try store.persistence.save(bad)
        let other = try store.reopen()
        other.register(persistableKind: Reflected.ComputedIdentifier.self)
        let loaded: Reflected.ComputedIdentifier? = try other.load("computed-a")
        #expect(loaded?.key == "a")
        #expect(throws: DocumentStoreError.identifierNotStored(kind: "ComputedIdentifier", identifier: "computed-b", found: "computed-other")) {
            let _: Reflected.ComputedIdentifier? = try other.load("computed-b")
        }
        #expect(Persistence.identifierBeingLoaded == nil)
    }
}
