import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

/// Histories longer than the revision history limit (20 here, on every side). The invariants: a chain
/// of edits stays one branch however long it is, a deletion is never undone by an older revision, and
/// the server and every replica end with the same leaves, each revision listed once in each feed.
@Suite("histories past the limit")
struct LongHistoryTests {
    static let limit = 20

    static func sync(_ fixture: SyncFixture, _ store: Persistence) async throws {
        try await fixture.sync(store) { $0.revisionHistoryLimit = Self.limit }.run()
    }

    static func edit(_ store: Persistence, _ identifier: String, times: Int, tag: String) throws {
        for step in 0..<times {
            let item = try #require(try store.load(Item.self, identifier))
            item.body = ["tag": .string(tag), "step": .integer(Int64(step))]
            try store.save(item)
        }
    }

    @Test("25 offline edits on one replica: one leaf everywhere, not a phantom conflict with the first revision", arguments: SyncServerKind.available)
    func longChainIsOneBranch(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("longchain", on: server)
        let a = try fixture.store("a", historyLimit: Self.limit)
        let b = try fixture.store("b", historyLimit: Self.limit)
        try a.save(Item(identifier: "doc", body: ["tag": "first"]))
        try await Self.sync(fixture, a)
        try await Self.sync(fixture, b)
        try Self.edit(b, "doc", times: 25, tag: "b")
        try await Self.sync(fixture, b)
        try await Self.sync(fixture, a)
        try await Self.sync(fixture, b)
        let serverLeaves = try await fixture.serverLeaves()
        #expect(serverLeaves["doc"]?.count == 1, "server leaves: \(serverLeaves["doc"] ?? [])")
        for store in [a, b] {
            let branches = try store.branches(of: "doc").map(\.revision)
            #expect(branches.count == 1, "\(branches)")
            #expect(try store.load(Item.self, "doc")?.body == ["tag": "b", "step": 24])
        }
        #expect(try await fixture.winnerMismatches().isEmpty)
        await fixture.dropSchema()
    }

    @Test("25 edits then a deletion on one replica; a replica behind with an unrelated change pulls and pushes: the document stays deleted everywhere", arguments: SyncServerKind.available)
    func deletionPastTheLimitStays(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("longdelete", on: server)
        let a = try fixture.store("a", historyLimit: Self.limit)
        let b = try fixture.store("b", historyLimit: Self.limit)
        try a.save(Item(identifier: "doc", body: ["tag": "first"]))
        try await Self.sync(fixture, a)
        try await Self.sync(fixture, b)
        try Self.edit(a, "doc", times: 25, tag: "a")
        try a.delete(try #require(try a.load(Item.self, "doc")))
        try await Self.sync(fixture, a)
        try b.save(Item(identifier: "unrelated", body: ["from": "b"]))
        try await Self.sync(fixture, b)
        try await Self.sync(fixture, a)
        try await Self.sync(fixture, b)
        for store in [a, b] {
            #expect(try store.load(Item.self, "doc") == nil, "the first body came back")
            #expect(try store.branches(of: "doc").filter { !$0.deleted }.isEmpty)
        }
        #expect(try await fixture.serverWinners()["doc"]?.hasSuffix(" deleted") == true)
        #expect(try await fixture.liveLeafCount(of: "doc") == 0)
        await fixture.dropSchema()
    }

    @Test("an old revision pushed after the server pruned past it stays superseded", arguments: SyncServerKind.available)
    func oldRevisionPushedLate(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("latepush", on: server)
        let a = try fixture.store("a", historyLimit: Self.limit)
        let b = try fixture.store("b", historyLimit: Self.limit)
        try a.save(Item(identifier: "doc", body: ["tag": "first"]))
        try await Self.sync(fixture, a)
        try await Self.sync(fixture, b)
        // b edits once offline (generation 2); a edits 30 times and deletes, and pushes first.
        try Self.edit(b, "doc", times: 1, tag: "b")
        try Self.edit(a, "doc", times: 30, tag: "a")
        try a.delete(try #require(try a.load(Item.self, "doc")))
        try await Self.sync(fixture, a)
        try await Self.sync(fixture, b)
        try await Self.sync(fixture, a)
        for store in [a, b] { #expect(try store.load(Item.self, "doc") == nil) }
        #expect(try await fixture.liveLeafCount(of: "doc") == 0)
        #expect(try a.allLeaves() == b.allLeaves())
        await fixture.dropSchema()
    }

    @Test("documents edited past generation 70 with branches on three replicas: the same leaves everywhere, each revision once in each feed", arguments: SyncServerKind.available)
    func heavilyEditedBranches(server: SyncServerKind) async throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("long history seed \(seed) (\(server))")
        var random = SeededGenerator(seed: seed)
        let fixture = try SyncFixture("heavy", on: server)
        let replicas = try (0..<3).map { try fixture.store("r\($0)", historyLimit: Self.limit) }
        let identifiers = (0..<4).map { "heavy-\($0)" }
        try replicas[0].transaction { store in
            for identifier in identifiers { try store.save(Item(identifier: identifier, body: ["tag": "first"])) }
        }
        for replica in replicas { try await Self.sync(fixture, replica) }
        for round in 0..<12 {
            for (index, replica) in replicas.enumerated() {
                for identifier in identifiers where random.int(in: 0...1) == 0 {
                    let times = random.int(in: 1...9)
                    if try replica.load(Item.self, identifier) == nil {
                        try replica.save(Item(identifier: identifier, body: ["tag": "again", "by": .integer(Int64(index))]))
                    } else if random.int(in: 0...15) == 0 {
                        try replica.delete(try #require(try replica.load(Item.self, identifier)))
                    } else {
                        try Self.edit(replica, identifier, times: times, tag: "r\(index)-\(round)")
                    }
                }
            }
            for index in Array(0..<3).shuffled(using: &random) where random.int(in: 0...2) > 0 {
                try await Self.sync(fixture, replicas[index])
            }
        }
        for _ in 0..<2 { for replica in replicas { try await Self.sync(fixture, replica) } }
        let generations = try replicas[0].branches(of: identifiers[0]).compactMap { Revision.generation(of: $0.revision) }
        print("heavy: generations of \(identifiers[0])'s leaves: \(generations)")
        let serverLeaves = try await fixture.serverLeaves()
        for (index, replica) in replicas.enumerated() {
            let leaves = try replica.allLeaves()
            #expect(leaves == serverLeaves, "replica \(index) leaves differ from the server's")
            #expect(try replica.repeatedFeedEntries() == 0, "replica \(index) lists a revision twice")
        }
        #expect(try await fixture.winnerMismatches().isEmpty)
        await fixture.dropSchema()
    }

    @Test("a resolver's merge that becomes the newest leaf prunes like any write: the replica keeps no leaf the server let go of", arguments: SyncServerKind.available)
    func mergePrunes(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("mergeprune", on: server)
        let (a, b, c) = (try fixture.store("a", historyLimit: Self.limit), try fixture.store("b", historyLimit: Self.limit),
                         try fixture.store("c", historyLimit: Self.limit))
        try a.save(Item(identifier: "doc", body: ["tag": "first"]))
        try await Self.sync(fixture, a)
        try await Self.sync(fixture, b)
        try await Self.sync(fixture, c)
        // a: generation 21, live; b: generation 2, live; c: generation 2, deleted. Every leaf is within
        // 20 generations of the newest, so every tree keeps all three.
        try Self.edit(a, "doc", times: 20, tag: "a")
        try Self.edit(b, "doc", times: 1, tag: "b")
        try c.delete(try #require(try c.load(Item.self, "doc")))
        for store in [b, c] { try await Self.sync(fixture, store) }
        // a pulls both, resolves: b's branch gets a tombstone (generation 3), the merge is generation 22,
        // and the horizon moves to 2: c's deletion and b's old leaf are past it, on the server and on a.
        for _ in 0..<2 {
            try await fixture.sync(a) {
                $0.revisionHistoryLimit = Self.limit
                $0.conflictResolver = { _ in .merge(["tag": "merged"]) }
            }.run()
        }
        let serverLeaves = try await fixture.serverLeaves()
        #expect(serverLeaves["doc"]?.count == 2, "server leaves: \(serverLeaves["doc"] ?? [])")
        #expect(try a.allLeaves()["doc"] == serverLeaves["doc"], "the replica that merged")
        for store in [b, c] { try await Self.sync(fixture, store) }
        for store in [b, c] { #expect(try store.allLeaves()["doc"] == serverLeaves["doc"]) }
        #expect(try await fixture.winnerMismatches().isEmpty)
        await fixture.dropSchema()
    }
}
