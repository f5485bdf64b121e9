import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import Synchronization
import Testing
import TestSupport

/// When a continuous replicator synchronizes. The invariants: a local commit is pushed within a poll
/// interval or so whenever it commits, even during a synchronization; another replica's push wakes it
/// through its one connection, also after that connection broke.
@Suite("continuous replication")
struct ContinuousSyncTests {
    /// Waits until `store` has `identifier`; `false` after `deadline`.
    static func arrives(_ identifier: String, in store: Persistence, within deadline: Duration) async throws -> Bool {
        let end = ContinuousClock.now + deadline
        while try store.snapshot(identifier) == nil {
            guard ContinuousClock.now < end else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    @Test("a save committed during a synchronization is pushed at once, not after the maximum interval",
          arguments: SyncServerKind.available)
    func saveDuringSync(server: SyncServerKind) async throws {
        let fixture = try SyncFixture("duringsync", on: server)
        let a = try fixture.store("a")
        let b = try fixture.store("b")
        // A conflict for a's first pull, so its resolver runs inside the synchronization.
        try a.save(Item(identifier: "conflict", body: ["v": 0]))
        try await fixture.sync(a).run()
        try await fixture.sync(b).run()
        for (store, value) in [(a, 1), (b, 2)] {
            let item = try #require(try store.load(Item.self, "conflict"))
            item.body = ["v": .integer(Int64(value))]
            try store.save(item)
        }
        // a's edit goes up now, so a's replicator has nothing to push in its first run (a push of its own
        // would make another run that sends the save, hiding whether the save alone starts one).
        try await fixture.sync(a).run()
        try await fixture.sync(b).run()
        let saved = Mutex(false)
        let sync = try fixture.sync(a) { configuration in
            configuration.maximumInterval = .seconds(60)
            configuration.pollInterval = .milliseconds(50)
            configuration.conflictResolver = { _ in
                // A save from elsewhere in the app, committed while the synchronization runs.
                let first = saved.withLock { done in defer { done = true }; return !done }
                if first { try! a.save(Item(identifier: "during", body: ["n": 1])) }
                // (Keeping the branches means no merge to push: nothing else sends the save up in this run.)
                return .keepBranches
            }
        }
        let log = StatusLog(sync.start())
        try await log.wait(deadline: .seconds(60), "idle") { if case .idle = $0 { true } else { false } }
        #expect(saved.withLock { $0 })
        let started = ContinuousClock.now
        var pushed = false
        let end = ContinuousClock.now + .seconds(20)
        while !pushed, ContinuousClock.now < end {
            pushed = try await fixture.serverWinners()["during"] != nil
            if !pushed { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(pushed, "the save waited for the maximum interval (60 s)")
        print("continuous: the save made during the synchronization reached the server \(ContinuousClock.now - started) after the first idle")
        await sync.stop()
        await fixture.dropSchema()
    }

    @Test("after the server drops its connection, the replicator reconnects at once and listens again",
          .enabled(if: TestServer.isAvailable, TestServer.skipReason))
    func relistenAfterDrop() async throws {
        let fixture = try SyncFixture("relisten")
        let a = try fixture.store("a")
        let b = try fixture.store("b")
        let sync = try fixture.sync(b) {
            $0.maximumInterval = .seconds(60)
            $0.initialBackoff = .milliseconds(50)
        }
        let log = StatusLog(sync.start())
        let idle = try await log.wait(deadline: .seconds(60), "idle") { if case .idle = $0 { true } else { false } }
        // The server ends every connection of this schema's replicators (a restart, a DBA, a proxy).
        try await fixture.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'document_sync:\(fixture.schema)'")
        try await log.wait(after: idle, deadline: .seconds(30), "connecting again") { $0 == .connecting }
        try await log.wait(after: idle, deadline: .seconds(60), "idle again") { if case .idle = $0 { true } else { false } }
        try a.save(Item(identifier: "after-drop", body: ["n": 1]))
        try await fixture.sync(a).run()
        #expect(try await Self.arrives("after-drop", in: b, within: .seconds(20)), "no notification after the reconnection (the poll waits a minute)")
        await sync.stop()
        await fixture.dropSchema()
    }
}
