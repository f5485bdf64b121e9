import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

/// What replicators do to the server before and besides replicating: creating the schema together,
/// and how many connections they hold.
@Suite("server setup and connections", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct ServerSetupTests {
    @Test("eight replicators whose first run() is at the same moment on a server without the schema all succeed, three times")
    func concurrentFirstRuns() async throws {
        for attempt in 0..<3 {
            let fixture = try SyncFixture("firstrun\(attempt)")
            let syncs = try (0..<8).map { index in
                let store = try fixture.store()
                try store.save(Item(identifier: "from-\(index)", body: ["n": .integer(Int64(index))]))
                return try fixture.sync(store)
            }
            let failures = await withTaskGroup(of: String?.self) { group in
                for sync in syncs {
                    group.addTask {
                        do { _ = try await sync.run(); return nil } catch { return "\(error)" }
                    }
                }
                return await group.reduce(into: [String]()) { list, failure in if let failure { list.append(failure) } }
            }
            #expect(failures.isEmpty, "attempt \(attempt): \(failures.count) of 8 first runs failed: \(failures.prefix(3))")
            #expect(try await fixture.count("S.documents") == 8)
            await fixture.dropSchema()
        }
    }

    /// This schema's replicator connections on the server, once they number `expected` (a closed
    /// connection leaves `pg_stat_activity` a moment after the client closed it), or after 10 s.
    static func connections(_ fixture: SyncFixture, settlingAt expected: Int) async throws -> Int {
        let end = ContinuousClock.now + .seconds(10)
        while true {
            let rows = try await fixture.sql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'document_sync:\(fixture.schema)'",
                                             as: Int64.self)
            let count = Int(rows.first ?? -1)
            if count == expected || ContinuousClock.now >= end { return count }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test("a continuous replicator holds one connection (it listens on it too), named for the schema; run() holds none after it returns")
    func oneConnectionPerReplicator() async throws {
        let fixture = try SyncFixture("connections")
        let a = try fixture.store()
        try a.save(Item(identifier: "doc", body: ["n": 1]))
        try await fixture.sync(a).run()
        #expect(try await Self.connections(fixture, settlingAt: 0) == 0, "run() closes its connection")
        let syncs = try (0..<3).map { _ in try fixture.sync(try fixture.store()) { $0.maximumInterval = .seconds(60) } }
        let logs = syncs.map { StatusLog($0.start()) }
        for log in logs { try await log.wait(deadline: .seconds(60), "idle") { if case .idle = $0 { true } else { false } } }
        // Held for good: the count stays 3 (it would pass 3 if each held two).
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await Self.connections(fixture, settlingAt: 3) == 3, "three continuous replicators, one connection each")
        // Notifications still arrive on that one connection: a push reaches every replicator soon.
        try a.save(Item(identifier: "later", body: ["n": 2]))
        try await fixture.sync(a).run()
        for sync in syncs {
            let end = ContinuousClock.now + .seconds(30)
            while try sync.persistence.snapshot("later") == nil, ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(20)) }
            #expect(try sync.persistence.snapshot("later") != nil, "a notification woke the replicator (its poll waits a minute)")
        }
        for sync in syncs { await sync.stop() }
        #expect(try await Self.connections(fixture, settlingAt: 0) == 0)
        await fixture.dropSchema()
    }

    @Test("a schema made before purge records and the view: a replicator that may not create works without them, one that may adds them")
    func schemaWithoutAdditions() async throws {
        let fixture = try SyncFixture("additions")
        let a = try fixture.store()
        try KillTests.write(a, prefix: "doc", count: 3)
        try await fixture.sync(a).run()
        try await fixture.execute("DROP VIEW S.current_documents")
        try await fixture.execute("DROP TABLE S.purges")
        // Without permission to create: pushes, pulls and purges go on, with no purge records.
        try a.delete(try #require(try a.load(Item.self, "doc-0")))
        try await fixture.sync(a) { $0.createSchema = false; $0.tombstoneRetention = .zero }.run()
        let b = try fixture.store()
        try await fixture.sync(b) { $0.createSchema = false }.run()
        #expect(try b.snapshot("doc-1") != nil)
        #expect(try await fixture.count("S.documents") == 2)
        #expect(try await fixture.sql("SELECT to_regclass('S.purges') IS NULL", as: Bool.self) == [true])
        // With it: both come back, and the next purge leaves a record.
        try a.delete(try #require(try a.load(Item.self, "doc-1")))
        try await fixture.sync(a) { $0.tombstoneRetention = .zero }.run()
        try await fixture.sync(a) { $0.tombstoneRetention = .zero }.run()
        #expect(try await fixture.count("S.purges") == 1)
        #expect(try await fixture.count("S.current_documents") == 1)
        await fixture.dropSchema()
    }
}
