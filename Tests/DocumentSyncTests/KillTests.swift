import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

@Suite("killed replicators", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct KillTests {
    /// Adds `count` new documents and edits a few existing ones, in one transaction.
    static func write(_ store: Persistence, prefix: String, count: Int) throws {
        try store.transaction { store in
            for n in 0..<count { try store.save(Item(identifier: "\(prefix)-\(n)", body: ["prefix": .string(prefix), "n": .integer(Int64(n))])) }
        }
    }

    @Test("50 SIGKILLs of a replicator mid-push and mid-pull: after resuming, nothing lost and nothing repeated")
    func killedMidSync() async throws {
        let fixture = try SyncFixture("kills")
        let pusher = try fixture.store("pusher")
        let writer = try fixture.store("writer")
        let pullerFile = fixture.folder.file("puller.sqlite")
        let faults = try ProcessFaults(program: "sync-probe", deadline: .seconds(90))
        var midRun = 0
        // Mid-push: before each trial the pusher's store gains 150 documents; the probe sends them 10 at a time.
        try Self.write(pusher, prefix: "push-0", count: 150)
        try await faults.killAtRandomMoments(label: "sync push", trials: 25, maxPause: .milliseconds(250),
                                             arguments: { _ in [pusher.url.path, fixture.schema, "10"] }) { kill in
            if !kill.outputLines.contains(where: { $0.hasPrefix("synced") }) { midRun += 1 }
            try Self.write(pusher, prefix: "push-\(kill.trial)", count: 150)
        }
        // Mid-pull: before each trial another replica pushes 150 documents; the probe pulls them 10 at a time.
        try Self.write(writer, prefix: "pull-0", count: 150)
        try await fixture.sync(writer).run()
        try await faults.killAtRandomMoments(label: "sync pull", trials: 25, maxPause: .milliseconds(250),
                                             arguments: { _ in [pullerFile.path, fixture.schema, "10"] }) { kill in
            if !kill.outputLines.contains(where: { $0.hasPrefix("synced") }) { midRun += 1 }
            if kill.trial < 25 {
                try Self.write(writer, prefix: "pull-\(kill.trial)", count: 150)
                try await fixture.sync(writer).run()
            }
        }
        print("kills: \(midRun) of 50 landed before the probe's first synchronization ended")
        #expect(midRun >= 10)
        // Resume every replica to the end.
        let puller = try fixture.store("puller")
        for store in [pusher, writer, puller, pusher] { try await fixture.sync(store).run() }
        let server = try await fixture.sql("SELECT id, winner, deleted FROM S.documents", as: (String, String, Bool).self)
        let serverWinners = Dictionary(uniqueKeysWithValues: server.map { ($0.0, $0.1 + ($0.2 ? " deleted" : "")) })
        let expectedCount = 51 * 150
        #expect(serverWinners.count == expectedCount)
        for store in [pusher, writer, puller] {
            #expect(try store.winners() == serverWinners)
            #expect(try store.repeatedFeedEntries() == 0)
        }
        // The server's tree holds each revision once, and every leaf has its body.
        let broken = try await fixture.sql("SELECT count(*) FROM S.revisions WHERE leaf AND body IS NULL", as: Int64.self)
        #expect(broken == [0])
        await fixture.dropSchema()
    }
}
