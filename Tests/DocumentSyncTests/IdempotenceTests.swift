import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

@Suite("idempotence and checkpoints")
struct IdempotenceTests {
    @Test("the same batch sent twice changes nothing the second time", arguments: SyncServerKind.available)
    func sameBatchTwice(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("twice", on: server)
        let store = try fixture.store()
        try KillTests.write(store, prefix: "doc", count: 50)
        let sync = try fixture.sync(store)
        try await sync.run()
        let edited = try #require(try store.load(Item.self, "doc-1"))
        edited.body = ["edited": true]
        try store.save(edited)
        let page = try store.outgoing(since: 0, limit: 1000, kinds: nil)
        let limit = sync.configuration.revisionHistoryLimit
        try await fixture.withServer(for: sync) { server in
            let replication = try Replication.prepare(sync, server)
            // Every leaf, sent as if the server lacked them all (past the filter that reads what it has).
            let first = try await server.insert(MissingLeaves(assumingNoneKnown: page.documents), historyLimit: limit)
            #expect(first == 1, "only the edited document gained a revision")
            let once = try await fixture.serverState()
            #expect(try await server.insert(MissingLeaves(assumingNoneKnown: page.documents), historyLimit: limit) == 0)
            #expect(try await fixture.serverState() == once)
            // Through the filter: nothing is missing any more.
            let checkpoint = try await server.checkpoint(.push, of: replication.identity)
            let sent = try await server.push(page.documents, checkpoint: checkpoint, of: replication.identity, historyLimit: limit)
            #expect(sent.revisions == 0 && sent.documents == 0)
            #expect(try await fixture.serverState() == once)
        }
        await fixture.dropSchema()
    }

    @Test("checkpoints that no longer match (a restored store, a lost server row) start over and change nothing", arguments: SyncServerKind.available)
    func checkpointMismatch(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("mismatch", on: server)
        let a = try fixture.store()
        let b = try fixture.store()
        try KillTests.write(a, prefix: "a", count: 120)
        try KillTests.write(b, prefix: "b", count: 80)
        try await fixture.sync(a).run()
        try await fixture.sync(b).run()
        try await fixture.sync(a).run()
        let before = try await fixture.serverState()
        let winners = try b.winners()
        // b's local checkpoints now name entries the server never saw; a's server rows are gone.
        let syncB = try fixture.sync(b)
        let replication = try await fixture.withServer(for: syncB) { try Replication.prepare(syncB, $0) }
        try b.setCheckpoint("stale:999999", for: replication.pushName)
        try b.setCheckpoint("stale:999999", for: replication.pullName)
        try await fixture.removeCheckpoints(except: replication.identity)
        let rerunB = try await fixture.sync(b).run()
        let rerunA = try await fixture.sync(a).run()
        #expect(rerunB.pushedRevisions == 0 && rerunB.pulledRevisions == 0)
        #expect(rerunA.pushedRevisions == 0 && rerunA.pulledRevisions == 0)
        #expect(try await fixture.serverState() == before)
        #expect(try b.winners() == winners)
        #expect(try a.winners() == winners)
        // And the next run resumes from the new checkpoints (nothing to send or fetch).
        try a.save(Item(identifier: "late", body: ["n": 1]))
        #expect(try await fixture.sync(a).run().pushedRevisions == 1)
        #expect(try await fixture.sync(b).run().pulledRevisions == 1)
        await fixture.dropSchema()
    }

    @Test("tombstones older than the retention leave the server; a replica behind the horizon resynchronizes fully", arguments: SyncServerKind.available)
    func tombstoneRetention(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("retention", on: server)
        let a = try fixture.store()
        let b = try fixture.store()
        try KillTests.write(a, prefix: "doc", count: 10)
        try await fixture.sync(a).run()
        try await fixture.sync(b).run()
        for n in 0..<4 { try a.delete(try #require(try a.load(Item.self, "doc-\(n)"))) }
        try await fixture.sync(a) { $0.tombstoneRetention = nil }.run()
        // The tombstones age past a zero retention: the next run purges them on the server.
        try await fixture.sync(a) { $0.tombstoneRetention = .zero }.run()
        #expect(try await fixture.documentCount() == 6)
        try b.save(Item(identifier: "new-on-b", body: ["n": 1]))
        let report = try await fixture.sync(b) { $0.tombstoneRetention = nil }.run()
        #expect(report.fullResync)
        #expect(report.purgedLocally == 4)
        #expect(try b.snapshot("new-on-b") != nil)
        for n in 0..<4 { #expect(try b.branches(of: "doc-\(n)").isEmpty) }
        #expect(try a.snapshot("doc-5") == b.snapshot("doc-5"))
        #expect(try await fixture.documentCount() == 7)
        await fixture.dropSchema()
    }

    @Test("a replica that kept a purged document's tombstones removes them at the server's purge record, and takes the document made again from a new first revision", arguments: SyncServerKind.available)
    func purgedThenMadeAgain(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("purgeagain", on: server)
        let limit = 20
        let (a, b, c) = (try fixture.store("a", historyLimit: limit), try fixture.store("b", historyLimit: limit),
                         try fixture.store("c", historyLimit: limit))
        func sync(_ store: Persistence, retention: Duration? = nil) async throws -> DocumentSync.Report {
            try await fixture.sync(store) { $0.revisionHistoryLimit = limit; $0.tombstoneRetention = retention }.run()
        }
        try a.save(Item(identifier: "doc", body: ["tag": "first"]))
        try LongHistoryTests.edit(a, "doc", times: 25, tag: "a")
        try a.delete(try #require(try a.load(Item.self, "doc")))
        _ = try await sync(a)
        _ = try await sync(b)
        #expect(try b.branches(of: "doc").map(\.deleted) == [true], "b holds the tombstone (generation 27)")
        // The tombstone ages past a zero retention: a's next run purges it on the server (after its pull;
        // its next pull passes the record).
        _ = try await sync(a, retention: .zero)
        #expect(try await fixture.documentCount() == 0)
        #expect(try await fixture.purgeCount() == 1)
        // c never knew it, and makes it again: generation 1, far below b's old tombstone.
        try c.save(Item(identifier: "doc", body: ["tag": "again"]))
        _ = try await sync(c)
        let report = try await sync(b)
        #expect(!report.fullResync, "b was not behind the purge: the record, not a full resynchronization, removed it")
        #expect(report.purgedLocally == 1)
        _ = try await sync(a)
        let serverLeaves = try await fixture.serverLeaves()
        for store in [a, b, c] {
            #expect(try store.load(Item.self, "doc")?.body == ["tag": "again"])
            #expect(try store.allLeaves() == serverLeaves)
        }
        await fixture.dropSchema()
    }

    @Test("a purge record does not remove a document this replica changed since: its change goes up", arguments: SyncServerKind.available)
    func purgeRecordKeepsUnpushedChanges(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("purgekeep", on: server)
        let (a, b) = (try fixture.store("a"), try fixture.store("b"))
        try a.save(Item(identifier: "doc", body: ["n": 1]))
        try await fixture.sync(a).run()
        try await fixture.sync(b).run()
        try a.delete(try #require(try a.load(Item.self, "doc")))
        try await fixture.sync(a).run()
        try await fixture.sync(b).run()
        // b brings the document back (a child of the tombstone) before it hears of the purge.
        try await fixture.sync(a) { $0.tombstoneRetention = .zero }.run()
        try b.save(Item(identifier: "doc", body: ["n": 2]))
        let report = try await fixture.sync(b).run()
        #expect(report.purgedLocally == 0)
        try await fixture.sync(a).run()
        for store in [a, b] { #expect(try store.load(Item.self, "doc")?.body == ["n": 2]) }
        #expect(try await fixture.documentCount(live: true) == 1)
        await fixture.dropSchema()
    }
}
