import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

@Suite("sync round trips")
struct RoundTripTests {
    @Test("a document made on one replica reaches another, and its edits and deletion follow", arguments: SyncServerKind.available)
    func twoReplicas(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("roundtrip", on: server)

        let a = try fixture.store()
        let b = try fixture.store()
        let item = Item(identifier: "one", body: ["name": "first", "count": 1])
        try a.save(item)
        let first = try await fixture.sync(a).run()
        #expect(first.pushedRevisions == 1)
        let second = try await fixture.sync(b).run()
        #expect(second.pulledRevisions == 1)
        let copy = try #require(try b.load(Item.self, "one"))
        #expect(copy.body == ["name": "first", "count": 1])
        copy.body = ["name": "second", "count": 2]
        try b.save(copy)
        try await fixture.sync(b).run()
        try await fixture.sync(a).run()
        #expect(try a.snapshot("one")?.body == ["name": "second", "count": 2])
        try a.delete(try #require(try a.refresh(item)))
        try await fixture.sync(a).run()
        try await fixture.sync(b).run()
        // The identity map keeps the instance b holds; a refresh reads the replicated deletion.
        #expect(try b.refresh(copy) == nil)
        #expect(try b.snapshot("one") == nil)
        #expect(try a.winners() == b.winners())
        await fixture.dropSchema()
    }
}

@Suite("filters and schema setup")
struct FilterAndSchemaTests {
    @Test("a replication filtered by kind sends and receives only those kinds, with checkpoints of its own", arguments: SyncServerKind.available)
    func filteredByKind(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("filter", on: server)
        let a = try fixture.store()
        let b = try fixture.store()
        try a.save(Item(identifier: "item", body: ["n": 1]))
        try a.save(Counter(identifier: "counter", value: 7))
        let itemsOnly = try await fixture.sync(a) { $0.kinds = ["Item"] }.run()
        #expect(itemsOnly.pushedDocuments == 1)
        #expect(try await fixture.serverWinners().keys.sorted() == ["item"])
        // Another filter is another replication: it starts from zero and sends the counter.
        let counters = try await fixture.sync(a) { $0.kinds = ["Counter"] }.run()
        #expect(counters.pushedDocuments == 1)
        let pulled = try await fixture.sync(b) { $0.kinds = ["Counter"] }.run()
        #expect(pulled.pulledRevisions == 1)
        #expect(try b.snapshot("counter")?.body == ["value": 7])
        #expect(try b.snapshot("item") == nil)
        await fixture.dropSchema()
    }

    @Test("a DBA runs the printed script with psql; a replicator that may not create the schema then syncs, and without it fails with .serverSchemaMissing", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
    func printedScript() async throws {
        let fixture = try SyncFixture("script")
        let store = try fixture.store()
        try store.save(Item(identifier: "one", body: ["n": 1]))
        await #expect { try await fixture.sync(store) { $0.createSchema = false }.run() } throws: { error in
            (error as? DocumentSyncError) == .serverSchemaMissing(schema: fixture.schema)
        }
        let script = fixture.folder.file("schema.sql")
        try DocumentSync.schemaScript(schema: fixture.schema).write(to: script, atomically: false, encoding: .utf8)
        let psql = try ChildProcess.start(URL(fileURLWithPath: "/usr/bin/psql"),
                                          [TestServer.url ?? "", "-v", "ON_ERROR_STOP=1", "-q", "-f", script.path])
        #expect(try await psql.waitForExit(deadline: .now + .seconds(180)) == .exited(0), "\(psql.outputLines)")
        let report = try await fixture.sync(store) { $0.createSchema = false }.run()
        #expect(report.pushedRevisions == 1)
        await fixture.dropSchema()
    }
}
