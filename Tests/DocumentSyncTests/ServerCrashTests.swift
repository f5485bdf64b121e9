import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import PostgresNIO
import Testing
import TestSupport

/// Tests that stop the server run a cluster of their own (`ci/postgres start`), never the shared one.
@Suite("server crashes", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct ServerCrashTests {
    /// Waits until the server's schema holds at least `count` documents.
    static func waitForDocuments(_ fixture: SyncFixture, atLeast count: Int64) async throws {
        let end = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < end {
            if let found = try? await fixture.sql("SELECT count(*) FROM S.documents", as: Int64.self).first, found >= count { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw ChildProcessError(description: "the server never reached \(count) documents")
    }

    @Test("pg_ctl stop -m immediate mid-push and mid-pull, then a restart: the resumed syncs lose and repeat nothing")
    func immediateStop() async throws {
        try await OwnCluster.with { cluster in try await Self.immediateStop(cluster) }
    }

    static func immediateStop(_ cluster: OwnCluster) async throws {
        let fixture = try SyncFixture("crash", address: cluster.address)
        let store = try fixture.store()
        try KillTests.write(store, prefix: "doc", count: 3000)
        let sync = try fixture.sync(store) { $0.batchSize = 20 }
        try await sync.run()   // creates the schema; the first batches follow
        try KillTests.write(store, prefix: "more", count: 3000)
        let push = Task { try await sync.run() }
        try await waitForDocuments(fixture, atLeast: 3100)
        try await cluster.crash()
        let pushResult = await push.result
        #expect(throws: DocumentSyncError.self) { try pushResult.get() }
        if case .failure(let error as DocumentSyncError) = pushResult { #expect(error.isTransient, "\(error)") }
        try await cluster.restart()
        try await sync.run()
        // A fresh replica pulls, and the server dies under it.
        let other = try fixture.store()
        let pull = Task { try await fixture.sync(other) { $0.batchSize = 20 }.run() }
        let end = ContinuousClock.now + .seconds(60)
        while try other.rawCount("documents") < 500, ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(2)) }
        try await cluster.crash()
        let pullResult = await pull.result
        #expect(throws: DocumentSyncError.self) { try pullResult.get() }
        try await cluster.restart()
        try await fixture.sync(other).run()
        let server = try await fixture.sql("SELECT id, winner, deleted FROM S.documents", as: (String, String, Bool).self)
        let winners = Dictionary(uniqueKeysWithValues: server.map { ($0.0, $0.1 + ($0.2 ? " deleted" : "")) })
        #expect(winners.count == 6000)
        #expect(try store.winners() == winners)
        #expect(try other.winners() == winners)
        #expect(try other.repeatedFeedEntries() == 0)
    }

    @Test("a continuous replicator goes offline when the server dies, retries with backoff, and catches up after the restart")
    func continuousOffline() async throws {
        try await OwnCluster.with { cluster in try await Self.continuousOffline(cluster) }
    }

    static func continuousOffline(_ cluster: OwnCluster) async throws {
        let fixture = try SyncFixture("continuous", address: cluster.address)
        let a = try fixture.store()
        let b = try fixture.store()
        let syncA = try fixture.sync(a) { $0.initialBackoff = .milliseconds(50); $0.maximumBackoff = .milliseconds(400) }
        let syncB = try fixture.sync(b) { $0.maximumInterval = .seconds(60) }
        let logA = StatusLog(syncA.start())
        let logB = StatusLog(syncB.start())
        try await logA.wait(deadline: .seconds(60), "idle") { if case .idle = $0 { true } else { false } }
        try a.save(Item(identifier: "first", body: ["n": 1]))
        // b hears of it through LISTEN/NOTIFY (its own poll waits a minute).
        let end = ContinuousClock.now + .seconds(120)
        while try b.snapshot("first") == nil, ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try b.snapshot("first")?.body == ["n": 1])
        try await cluster.crash()
        try a.save(Item(identifier: "second", body: ["n": 2]))
        let offline = try await logA.wait(deadline: .seconds(60), "offline") { if case .offline = $0 { true } else { false } }
        let again = try await logA.wait(after: offline, deadline: .seconds(60), "second offline") { if case .offline = $0 { true } else { false } }
        if case .offline(let first, _) = logA.all[offline], case .offline(let second, _) = logA.all[again] {
            #expect(second > first, "the retries back off")
        }
        try await cluster.restart()
        try await logA.wait(after: again, deadline: .seconds(60), "idle after the restart") { status in
            if case .idle(let report) = status { report.pushedRevisions >= 1 } else { false }
        }
        let server = try await fixture.sql("SELECT id FROM S.documents ORDER BY id", as: String.self)
        #expect(server == ["first", "second"])
        await syncA.stop()
        await syncB.stop()
        #expect(logA.all.last == .stopped)
    }
}

/// A connection the server ends while a result streams in, with rows still buffered: postgres-nio
/// 1.33.2 traps (`RowStreamStateMachine`, "How can we receive a body part, after a
/// channelReadComplete") when that happens while its demand-driven row sequence waits for the reader.
/// Issue 28's churn lost replica processes to it when the server crashed during a pull of large rows.
@Suite("a connection that ends mid-result", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct EndedMidResultTests {
    @Test("the server ends the connection while rows stream in: .serverUnavailable every time, never a trap", arguments: [
        (rows: 400, bytes: 50_000, endAt: 200), (rows: 4000, bytes: 2_000, endAt: 3000)])
    func serverEndsMidResult(rows: Int, bytes: Int, endAt: Int) async throws {
        for round in 1...25 {
            let session = try await ServerSession.open(try TestServer.address(), connectTimeout: .seconds(60))
            // The backend terminates itself after sending `endAt` rows; the rows sent before are still
            // in the socket when its end arrives.
            let query: PostgresQuery = """
                SELECT CASE WHEN i = \(unescaped: String(endAt)) THEN pg_terminate_backend(pg_backend_pid())::text
                            ELSE repeat('x', \(unescaped: String(bytes))) END
                FROM generate_series(1, \(unescaped: String(rows))) AS i
                """
            await #expect("round \(round)") { _ = try await session.rows(query, as: String.self) } throws: { error in
                guard let error = error as? DocumentSyncError, case .serverUnavailable = error else { return false }
                return error.isTransient
            }
            await session.close()
        }
    }
}
