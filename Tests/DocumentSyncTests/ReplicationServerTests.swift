import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

/// The rules every ``ReplicationServer`` keeps (see its documentation), checked on each server through
/// the protocol alone; and, with PostgreSQL at hand, the in-memory twin against it, operation for
/// operation.
@Suite("replication servers")
struct ReplicationServerTests {
    /// Every leaf of every document `page` holds after `position`, read page by page of `limit`
    /// documents, each page starting after the last position of the one before (a pull's checkpoint).
    static func readFeed(_ server: any ReplicationServer, after position: Int64 = 0, limit: Int,
                         kinds: Set<String>? = nil) async throws -> [FeedPage.Row] {
        var rows: [FeedPage.Row] = []
        var position = position
        while true {
            let page = try await server.feedPage(after: position, limit: limit, kinds: kinds)
            let last = max(page.rows.last?.sequence ?? 0, page.purges.last?.sequence ?? 0)
            guard last > position else { return rows }
            rows += page.rows
            position = last
            if Set(page.rows.map(\.sequence)).count < limit { return rows }
        }
    }

    @Test("a batch's documents take consecutive feed positions in byte order of their identifiers (PostgreSQL's COLLATE \"C\")",
          arguments: SyncServerKind.available)
    func feedOrder(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("feedorder", on: server)
        let store = try fixture.store()
        // Byte order differs from Swift's String order here: Swift compares "e\u{301}x" as "éx", after
        // "éa"; its bytes (65 cc 81 78) come before "éa"'s (c3 a9 61).
        let identifiers = ["éa", "e\u{301}x", "a", "Z", "ｚ", "a b", "a-b", "10", "9"]
        try store.transaction { store in
            for identifier in identifiers { try store.save(Item(identifier: identifier, body: ["id": .string(identifier)])) }
        }
        let sync = try fixture.sync(store)
        try await sync.push()
        try await fixture.withServer(for: sync) { server in
            let rows = try await Self.readFeed(server, limit: 100)
            #expect(rows.map(\.identifier) == identifiers.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            #expect(rows.map(\.sequence) == Array(1...Int64(identifiers.count)))
        }
        await fixture.dropSchema()
    }

    @Test("reading the feed page by page from each page's last position neither repeats nor skips a document, and an edit moves a document to the end",
          arguments: SyncServerKind.available)
    func feedPagesAfterCheckpoints(server: SyncServerKind) async throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("feed pages seed \(seed) (\(server))")
        var random = SeededGenerator(seed: seed)
        let fixture = try SyncFixture("feedpages", on: server)
        let (a, b) = (try fixture.store("a"), try fixture.store("b"))
        for round in 0..<4 {
            for (name, store) in [("a", a), ("b", b)] {
                try store.transaction { store in
                    for n in 0..<random.int(in: 5...40) { try store.save(Item(identifier: "\(name)-\(round)-\(n)", body: ["n": .integer(Int64(n))])) }
                }
                try await fixture.sync(store) { $0.batchSize = random.int(in: 3...17) }.run()
            }
        }
        let sync = try fixture.sync(a)
        try await fixture.withServer(for: sync) { server in
            let all = try await Self.readFeed(server, limit: 1000)
            #expect(all.count == Set(all.map(\.identifier)).count, "one leaf per document (no conflicts were made)")
            for limit in [1, 2, 7, 50] {
                let paged = try await Self.readFeed(server, limit: limit)
                #expect(paged == all, "pages of \(limit)")
            }
            #expect(zip(all, all.dropFirst()).allSatisfy { $0.sequence < $1.sequence })
            // An edit gives the document a position after every other one; the page after the old end holds it alone.
            let end = try #require(all.last?.sequence)
            let item = try #require(try a.load(Item.self, all[0].identifier))
            item.body = ["edited": true]
            try a.save(item)
            try await fixture.sync(a).push()
            let after = try await Self.readFeed(server, after: end, limit: 5)
            #expect(after.map(\.identifier) == [all[0].identifier])
            #expect(after.first?.sequence == end + 1)
            #expect(try await Self.readFeed(server, limit: 1000).map(\.identifier) == all.dropFirst().map(\.identifier) + [all[0].identifier])
        }
        await fixture.dropSchema()
    }

    @Test("checkpoints: one history per replication and direction, replaced by each write, empty when never written",
          arguments: SyncServerKind.available)
    func checkpoints(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("checkpoints", on: server)
        let sync = try fixture.sync(try fixture.store())
        try await sync.push()
        try await fixture.withServer(for: sync) { server in
            #expect(try await server.checkpoint(.push, of: "nobody").entries.isEmpty)
            let pushed = CheckpointHistory(nil).adding(7).adding(9)
            try await server.setCheckpoint(pushed, .push, of: "r1", waitForDisk: true)
            #expect(try await server.checkpoint(.push, of: "r1") == pushed)
            #expect(try await server.checkpoint(.pull, of: "r1").entries.isEmpty)
            let pulled = CheckpointHistory(nil).adding(3)
            try await server.setCheckpoint(pulled, .pull, of: "r1", waitForDisk: false)
            #expect(try await server.checkpoint(.push, of: "r1") == pushed)
            #expect(try await server.checkpoint(.pull, of: "r1") == pulled)
            let replaced = pushed.adding(12)
            try await server.setCheckpoint(replaced, .push, of: "r1", waitForDisk: true)
            #expect(try await server.checkpoint(.push, of: "r1") == replaced)
            #expect(try await server.checkpoint(.push, of: "r2").entries.isEmpty)
        }
        await fixture.dropSchema()
    }

    @Test("a tombstone purge removes only documents without a live leaf, records each at a new feed position, and moves the horizon to their last position",
          arguments: SyncServerKind.available)
    func purgeRecords(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("purgerules", on: server)
        let (a, b) = (try fixture.store("a"), try fixture.store("b"))
        try KillTests.write(a, prefix: "doc", count: 6)
        try await fixture.sync(a) { $0.tombstoneRetention = nil }.run()
        try await fixture.sync(b) { $0.tombstoneRetention = nil }.run()
        // doc-1 and doc-4 deleted on a; doc-2 deleted on a but edited on b (a live branch survives).
        for n in [1, 2, 4] { try a.delete(try #require(try a.load(Item.self, "doc-\(n)"))) }
        let edited = try #require(try b.load(Item.self, "doc-2"))
        edited.body = ["kept": true]
        try b.save(edited)
        try await fixture.sync(a) { $0.tombstoneRetention = nil }.run()
        try await fixture.sync(b) { $0.tombstoneRetention = nil }.push()
        let sync = try fixture.sync(a)
        try await fixture.withServer(for: sync) { server in
            let before = try await Self.readFeed(server, limit: 100)
            let lastPositions = before.filter { ["doc-1", "doc-4"].contains($0.identifier) }.map(\.sequence)
            let end = try #require(before.map(\.sequence).max())
            try await server.purgeTombstones(olderThan: .zero)
            #expect(try await server.purgeHorizon() == lastPositions.max())
            let page = try await server.feedPage(after: 0, limit: 100, kinds: nil)
            #expect(Set(page.rows.map(\.identifier)) == ["doc-0", "doc-2", "doc-3", "doc-5"])
            #expect(page.purges == [FeedPage.Purge(sequence: end + 1, identifier: "doc-1"), FeedPage.Purge(sequence: end + 2, identifier: "doc-4")])
            // Nothing left to purge: a second purge changes nothing.
            try await server.purgeTombstones(olderThan: .zero)
            #expect(try await server.feedPage(after: 0, limit: 100, kinds: nil).purges.count == 2)
            #expect(try await server.feedPage(after: end + 1, limit: 100, kinds: nil).purges.map(\.identifier) == ["doc-4"])
        }
        await fixture.dropSchema()
    }

    @Test("the in-memory server answers as PostgreSQL does: the same batches, re-sent batches and purges give the same feed, trees and checkpoints",
          .enabled(if: TestServer.isAvailable, TestServer.skipReason))
    func twinAgreesWithPostgres() async throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("twin seed \(seed)")
        var random = SeededGenerator(seed: seed)
        let postgres = try SyncFixture("twin")
        let memory = try SyncFixture("twin", on: .memory)
        let replicas = try (0..<3).map { try postgres.store("r\($0)", historyLimit: 20) }
        let limit = 20
        let sync = try postgres.sync(replicas[0]) { $0.revisionHistoryLimit = limit }
        try await sync.push()   // creates the schema
        try await postgres.withServer(for: sync) { pg in
            let twin = try #require(memory.memory)
            let servers: [any ReplicationServer] = [pg, twin]
            var sent: [Int64] = [0, 0, 0]
            for step in 0..<30 {
                let index = random.int(in: 0...2)
                let store = replicas[index]
                try store.transaction { store in
                    // Each document once per transaction: deleting a winner with a live sibling leaves the
                    // sibling current, which a new document of that name would conflict with.
                    var touched = Set<String>()
                    for _ in 0..<random.int(in: 1...6) {
                        let identifier = "d\(random.int(in: 0...11))"
                        guard touched.insert(identifier).inserted else { continue }
                        if let item = try store.load(Item.self, identifier) {
                            if random.chance(0.15) { try store.delete(item) } else {
                                item.body = ["step": .integer(Int64(step)), "by": .integer(Int64(index))]
                                try store.save(item)
                            }
                        } else {
                            try store.save(Item(identifier: identifier, body: ["made": .integer(Int64(step))]))
                        }
                    }
                }
                // Push the replica's new changes to both servers, sometimes twice, sometimes from the start.
                let from = random.chance(0.2) ? 0 : sent[index]
                let page = try store.outgoing(since: from, limit: 1000, kinds: nil)
                let history = CheckpointHistory(nil).adding(page.lastSequence)
                let times = random.chance(0.3) ? 2 : 1
                var results: [[String]] = []
                for server in servers {
                    var answers: [String] = []
                    for _ in 0..<times {
                        answers.append("\(try await server.push(page.documents, checkpoint: history, of: "r\(index)", historyLimit: limit))")
                    }
                    results.append(answers)
                }
                #expect(results[0] == results[1], "step \(step), sent \(times) times from \(from)")
                sent[index] = page.lastSequence
                if random.chance(0.2) { for server in servers { try await server.purgeTombstones(olderThan: .zero) } }
                // Each replica pulls everything (from the server) so later edits descend from the others'.
                let other = replicas[random.int(in: 0...2)]
                let feed = try await Self.readFeed(pg, limit: 7)
                let known = try other.knownRevisions(feed.map { ($0.identifier, $0.revision) })
                try other.transaction { store in
                    for row in feed where !known.contains(row.identifier + "\u{0}" + row.revision) {
                        _ = try store.insertForeign(try row.verified())
                    }
                }
            }
            for pageSize in [1, 3, 100] {
                let onPostgres = try await Self.readFeed(pg, limit: pageSize)
                let inMemory = try await Self.readFeed(twin, limit: pageSize)
                #expect(onPostgres == inMemory, "feed pages of \(pageSize)")
            }
            #expect(try await pg.purgeHorizon() == twin.purgeHorizon())
            let pgPurges = try await pg.feedPage(after: 0, limit: 1000, kinds: nil).purges
            #expect(pgPurges == twin.feedPage(after: 0, limit: 1000, kinds: nil).purges)
            for index in 0..<3 {
                #expect(try await pg.checkpoint(.push, of: "r\(index)") == twin.checkpoint(.push, of: "r\(index)"))
            }
            #expect(try await postgres.serverState() == memory.serverState())
        }
        await postgres.dropSchema()
    }
}
