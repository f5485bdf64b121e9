import DocumentStore
import DocumentSync
import DocumentTestModel
import Foundation
import Testing
import TestSupport

/// A replica's pulls across power cuts: the documents a pull brought in and the checkpoint that says
/// how far it got are committed together, so after a cut neither is ahead of the other. A checkpoint
/// ahead of its documents would lose them for good (the next pull starts past them); one behind
/// would pull documents twice.
@Suite("power cuts of a pulling replica", .serialized,
       .enabled(if: TestServer.isAvailable, TestServer.skipReason),
       .enabled(if: PowerCuts.isAvailable, "power-cut tests need /dev/fuse and fusermount3 (Docs/LazyFS.md)"))
struct SyncPowerCutTests {
    static let defaultCuts = 20

    /// Before each cut another replica pushes 100 new documents; `sync-probe` pulls them 10 at a time
    /// on lazyfs and prints `acked documents N` after each synchronization returns; the power is cut at
    /// a random moment. The store left on disk must open and hold at least every acknowledged
    /// document. At the end it resumes from what survived: it then holds exactly the server's
    /// documents, and its change feed names none twice.
    @Test("a pull acknowledged, then the power cut: nothing lost, nothing pulled twice")
    func pullsSurvivePowerCuts() async throws {
        let fixture = try SyncFixture("powercut")
        let writer = try fixture.store("writer")
        var pushed = 0
        func pushMore() async throws {
            try writer.transaction { store in
                for n in pushed..<(pushed + 100) {
                    try store.save(Item(identifier: "doc-\(n)", body: ["n": .integer(Int64(n))]))
                }
            }
            pushed += 100
            _ = try await fixture.sync(writer).run()
        }
        try await pushMore()
        let temp = try TemporaryFolder(prefix: "power-sync")
        defer { #expect(PowerCuts.mounts(under: temp.url).isEmpty, "a lazyfs mount was left behind") }
        let cuts = try PowerCuts(label: "DocumentSync pull", writer: "sync-probe", in: temp)
        let run = try await cuts.run(cuts: PowerCuts.cutCount(default: Self.defaultCuts),
                                     arguments: { [$0.mount.appendingPathComponent("puller.sqlite").path, fixture.schema, "10"] },
                                     read: { backing in
            let found = try Self.documentCount(backing.appendingPathComponent("puller.sqlite"))
            try await pushMore()
            return ["documents": found]
        })
        #expect(run.losses.isEmpty, "\(run):\n\(run.losses.joined(separator: "\n"))")
        #expect(run.acknowledged > 0, "\(run): the replica acknowledged no pull")

        // Resume from what the last cut left, to the end.
        var configuration = PersistenceConfiguration(url: cuts.backing.appendingPathComponent("puller.sqlite"))
        configuration.busyTimeout = .seconds(60)
        let puller = try Persistence(configuration: configuration)
        puller.register(persistableKind: Item.self)
        _ = try await fixture.sync(puller).run()
        let server = try await fixture.sql("SELECT id, winner, deleted FROM S.documents", as: (String, String, Bool).self)
        let serverWinners = Dictionary(uniqueKeysWithValues: server.map { ($0.0, $0.1 + ($0.2 ? " deleted" : "")) })
        #expect(serverWinners.count == pushed)
        #expect(try puller.winners() == serverWinners)
        #expect(try puller.repeatedFeedEntries() == 0, "a document was pulled twice")
        await fixture.dropSchema()
    }

    /// How many documents the store at `url` holds; throws when it does not open.
    static func documentCount(_ url: URL) throws -> Int {
        guard FileManager.default.fileExists(atPath: url.path) else { return 0 }
        let store = try Persistence(configuration: PersistenceConfiguration(url: url))
        store.register(persistableKind: Item.self)
        return try store.query(Item.self).count()
    }
}
