import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

/// Pushes of the same documents at the same moment, on two connections. The invariant: after any
/// interleaving, every `documents` row names the winner of its tree (`winner()`), so the tombstone
/// purge, which trusts `documents.deleted`, never removes a document that has a live leaf.
@Suite("concurrent pushes", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct ConcurrentPushTests {
    @Test("two replicas pushing the same new documents at once (one deleting half): documents equals winner(), and the purge keeps every live one")
    func samePushAtOnce() async throws {
        let fixture = try SyncFixture("samepush")
        let a = try fixture.store("a")
        let b = try fixture.store("b")
        let rounds = 40
        let perRound = 8
        for round in 0..<rounds {
            try a.transaction { store in
                for n in 0..<perRound { try store.save(Item(identifier: "r\(round)-\(n)", body: ["by": "a", "n": .integer(Int64(n))])) }
            }
            try b.transaction { store in
                for n in 0..<perRound {
                    let item = Item(identifier: "r\(round)-\(n)", body: ["by": "b", "n": .integer(Int64(n))])
                    try store.save(item)
                    if n % 2 == 0 { try store.delete(item) }
                }
            }
            // Both pushes on their own connections, started together.
            let syncA = try fixture.sync(a)
            let syncB = try fixture.sync(b)
            async let pushA = syncA.push()
            async let pushB = syncB.push()
            _ = try await (pushA, pushB)
        }
        let mismatches = try await fixture.winnerMismatches()
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(rounds * perRound) documents disagree with winner(): \(mismatches.prefix(5))")
        // Every document has a's live leaf: none is deleted, so none may be purged.
        let deleted = try await fixture.count("S.documents WHERE deleted")
        #expect(deleted == 0, "\(deleted) documents say deleted although a's live leaf wins")
        try await Task.sleep(for: .milliseconds(1100))
        try await fixture.sync(try fixture.store("purger")) { $0.tombstoneRetention = .seconds(1) }.run()
        #expect(try await fixture.count("S.documents") == rounds * perRound, "the purge removed documents that have a live leaf")
        // A replica that resynchronizes, and a fresh one, hold every document, alive.
        for store in [a, b, try fixture.store("fresh")] {
            try await fixture.sync(store) { $0.tombstoneRetention = .seconds(1) }.run()
            let winners = try store.winners()
            #expect(winners.count == rounds * perRound)
            #expect(winners.values.filter { $0.hasSuffix(" deleted") }.isEmpty)
        }
        await fixture.dropSchema()
    }

    @Test("pushes and purges of the same documents at once on many connections: documents equals winner() after each round")
    func pushesAndPurgesAtOnce() async throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("concurrent pushes seed \(seed)")
        var random = SeededGenerator(seed: seed)
        let fixture = try SyncFixture("pushpurge")
        let replicas = try (0..<4).map { try fixture.store("r\($0)") }
        let identifiers = (0..<12).map { "hot-\($0)" }
        for round in 0..<15 {
            for (index, replica) in replicas.enumerated() {
                try replica.transaction { store in
                    for identifier in identifiers where random.int(in: 0...2) == 0 {
                        if let item = try store.load(Item.self, identifier) {
                            if random.int(in: 0...3) == 0 { try store.delete(item) } else {
                                item.body = ["by": .integer(Int64(index)), "round": .integer(Int64(round))]
                                try store.save(item)
                            }
                        } else {
                            try store.save(Item(identifier: identifier, body: ["by": .integer(Int64(index)), "new": .integer(Int64(round))]))
                        }
                    }
                }
            }
            let syncs = try replicas.map { try fixture.sync($0) { $0.tombstoneRetention = .zero } }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for sync in syncs { group.addTask { _ = try await sync.run() } }
                try await group.waitForAll()
            }
            let mismatches = try await fixture.winnerMismatches()
            #expect(mismatches.isEmpty, "round \(round): \(mismatches)")
            let purgedLive = try await fixture.count("S.revisions AS r WHERE r.leaf AND NOT r.deleted AND NOT EXISTS (SELECT 1 FROM S.documents AS d WHERE d.id = r.document)")
            #expect(purgedLive == 0, "round \(round): live leaves of documents the purge removed")
        }
        await fixture.dropSchema()
    }
}
