import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

/// Replication's logic: runs against every server (``SyncServerKind``), but the check of the SQL winner
/// function, which only PostgreSQL has.
@Suite("convergence")
struct ConvergenceTests {
    /// Edits `identifier` on `store` (a new body), or deletes it; nothing when it is gone.
    static func edit(_ store: Persistence, _ identifier: String, body: JSON?) throws {
        guard let item = try store.load(Item.self, identifier) else { return }
        if let body {
            item.body = body
            try store.save(item)
        } else {
            try store.delete(item)
        }
    }

    @Test("three replicas each making and editing 1,000 documents offline end with the server's winners, the winner rule's choice",
          arguments: SyncServerKind.available)
    func threeReplicas(server: SyncServerKind) async throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("convergence seed \(seed) (\(server))")
        var random = SeededGenerator(seed: seed)
        let fixture = try SyncFixture("converge", on: server)
        let replicas = try (0..<3).map { _ in try fixture.store() }
        // 200 documents every replica starts from.
        try replicas[0].transaction { store in
            for n in 0..<200 { try store.save(Item(identifier: "shared-\(n)", body: ["n": .integer(Int64(n)), "v": 0])) }
        }
        for replica in replicas { try await fixture.sync(replica).run() }
        // Offline: each makes 1,000 documents and edits some, edits and deletes shared ones (overlapping),
        // and makes the same edit as the others on the first 20 shared ones (the same revision everywhere).
        for (index, replica) in replicas.enumerated() {
            let owner = Int64(index)
            try replica.transaction { store in
                for n in 0..<1000 { try store.save(Item(identifier: "r\(index)-\(n)", body: ["owner": .integer(owner), "v": 0])) }
                for step in 0..<400 {
                    let n = random.int(in: 0...999)
                    try Self.edit(store, "r\(index)-\(n)", body: step % 10 == 9 ? nil : ["owner": .integer(owner), "v": .integer(Int64(step))])
                }
                for step in 0..<150 {
                    let n = random.int(in: 20...199)
                    try Self.edit(store, "shared-\(n)", body: step % 6 == 5 ? nil : ["n": .integer(Int64(n)), "by": .integer(owner), "step": .integer(Int64(step))])
                }
                for n in 0..<20 { try Self.edit(store, "shared-\(n)", body: ["n": .integer(Int64(n)), "v": "same"]) }
            }
        }
        for round in 1...3 {
            let order = Array(0..<3).shuffled(using: &random)
            print("round \(round): \(order)")
            for index in order { try await fixture.sync(replicas[index]).run() }
        }
        let winners = try replicas.map { try $0.winners() }
        #expect(winners[0].count == 3200)
        #expect(winners[0] == winners[1])
        #expect(winners[1] == winners[2])
        #expect(try await fixture.serverWinners() == winners[0])
        #expect(try await fixture.winnerMismatches().isEmpty)
        if server.isPostgres {
            let chosen = try await fixture.sql("SELECT d.id, w.revision, w.deleted FROM S.documents AS d CROSS JOIN LATERAL S.winner(d.id) AS w",
                                               as: (String, String, Bool).self)
            #expect(Dictionary(uniqueKeysWithValues: chosen.map { ($0.0, $0.1 + ($0.2 ? " deleted" : "")) }) == winners[0])
        }
        // The edits overlapped: some documents have several live branches, the same on every side.
        let conflicted = try await fixture.serverLeaves().values.filter { $0.filter { !$0.hasSuffix(" deleted") }.count > 1 }
        #expect(!conflicted.isEmpty)
        for n in 0..<20 { #expect(try replicas.map { try $0.snapshot("shared-\(n)")?.body }.allSatisfy { $0 == ["n": .integer(Int64(n)), "v": "same"] }) }
        await fixture.dropSchema()
    }

    @Test("Swift's winner rule and the server's SQL function agree on random sets of leaves",
          .enabled(if: TestServer.isAvailable, TestServer.skipReason))
    func winnerRule() async throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("winner rule seed \(seed)")
        var random = SeededGenerator(seed: seed)
        let fixture = try SyncFixture("winner")
        try await fixture.sync(try fixture.store()).run()
        var expected: [String: String] = [:]
        var values: [String] = []
        for document in 0..<400 {
            var leaves: [(revision: String, deleted: Bool)] = []
            for _ in 0..<random.int(in: 1...5) {
                // Few distinct generations and digests that share prefixes, so ties reach the digest.
                let digest = String((0..<64).map { _ in random.pick(Array("0123456789abcdef")) })
                let revision = "\(random.int(in: 1...3))-\(random.chance(0.5) ? "aa" : "a")\(digest.prefix(62))"
                guard !leaves.contains(where: { $0.revision == revision }) else { continue }
                leaves.append((revision, random.chance(0.3)))
            }
            expected["d\(document)"] = leaves.max { Revision.beats($1, $0) }!.revision
            for leaf in leaves {
                let generation = Revision.generation(of: leaf.revision)!
                let digest = leaf.revision.split(separator: "-")[1]
                values.append("('d\(document)', '\(leaf.revision)', \(generation), '\(digest)', \(leaf.deleted), true)")
            }
        }
        try await fixture.execute("INSERT INTO S.revisions(document, revision, generation, digest, deleted, leaf) VALUES " + values.joined(separator: ", "))
        let chosen = try await fixture.sql("SELECT d, (SELECT revision FROM S.winner(d)) FROM (SELECT DISTINCT document AS d FROM S.revisions) AS q",
                                           as: (String, String).self)
        #expect(chosen.count == expected.count)
        #expect(Dictionary(uniqueKeysWithValues: chosen.map { ($0.0, $0.1) }) == expected)
        await fixture.dropSchema()
    }

    @Test("a conflict resolver's merge reaches every replica and ends the conflict everywhere", arguments: SyncServerKind.available)
    func resolverMerges(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("resolver", on: server)
        let a = try fixture.store()
        let b = try fixture.store()
        try a.save(Item(identifier: "doc", body: ["tags": ["base"]]))
        try await fixture.sync(a).run()
        try await fixture.sync(b).run()
        try Self.edit(a, "doc", body: ["tags": ["base", "a"]])
        try Self.edit(b, "doc", body: ["tags": ["base", "b"]])
        let merge: @Sendable (DocumentSync.Conflict) -> DocumentSync.Resolution = { conflict in
            var tags = Set<String>()
            for body in [conflict.current] + conflict.others {
                if case .array(let items)? = body.value(atPath: "tags") {
                    for case .string(let tag) in items { tags.insert(tag) }
                }
            }
            return .merge(["tags": .array(tags.sorted().map { .string($0) })])
        }
        try await fixture.sync(a) { $0.conflictResolver = merge }.run()
        let report = try await fixture.sync(b) { $0.conflictResolver = merge }.run()
        #expect(report.resolvedConflicts == 1)
        try await fixture.sync(a) { $0.conflictResolver = merge }.run()
        for store in [a, b] {
            #expect(try store.snapshot("doc")?.body == ["tags": ["a", "b", "base"]])
            #expect(try store.branches(of: "doc").filter { !$0.deleted }.count == 1)
        }
        #expect(try a.winners() == b.winners())
        await fixture.dropSchema()
    }
}
