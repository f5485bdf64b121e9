import DocumentStore
import DocumentSync
import Foundation
import Testing
import TestSupport

/// ChurnTests once ended (CI of 0234419, seed 1692931074782069914, two server crashes) with a replica
/// holding a first revision, live, of a document whose server tree had only a newer incarnation.
@Suite(.serialized, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PurgedLiveCopyTests {
    /// A replica that never pulled the deletion resynchronizes fully when its checkpoint is older than
    /// the purge horizon, and drops its copy.
    @Test func aReplicaThatNeverPulledTheDeletionDropsItsCopy() async throws {
        try await Self.scenario("purgelive", loseCheckpoints: false)
    }

    /// The churn failure: the server crashed and lost its copies of the pull checkpoints (written
    /// without waiting for the disk; the push checkpoints commit with their pushes), so the replica
    /// that never pulled the deletion pulls from zero. Before the purge records removed live copies
    /// (main 1ca7502), it kept its live first revision beside the document's new incarnation, and never
    /// converged with the server.
    @Test func afterTheServerLostThePullCheckpointsTheReplicaStillDropsItsCopy() async throws {
        try await Self.scenario("purgepull", loseCheckpoints: true)
    }

    /// The same replica after the server lost every checkpoint row, its push checkpoints too (which a
    /// crash does not lose: they commit with their pushes; a restore of an older backup, or a hand-made
    /// `DELETE`, does): it pushes from zero, before it pulls. On 1ca7502 it sent its copy back, so the
    /// deleted and purged document lived again on the server (a deletion undone). Now the push checks the
    /// documents its local checkpoint covers against the server's purge records and removes them instead;
    /// a document the replica changed since still goes up.
    @Test func aReplicaStartingFromZeroDoesNotBringThePurgedDocumentBack() async throws {
        try await DocPromiseFixture.with("purgezero") { f in
            let a = try f.store("a"), b = try f.store("b")
            try a.docPut("d", ["v": 1])
            try a.docPut("e", ["v": 1])
            _ = try await f.sync(a).dpRun()
            _ = try await f.sync(b).dpRun()                 // B has d and e, live
            try a.docRemove("d")
            try a.docRemove("e")
            _ = try await f.sync(a).dpRun()
            _ = try await f.sync(a) { $0.tombstoneRetention = .zero }.dpRun()
            #expect(try await f.count("S.documents WHERE id IN ('d', 'e')") == 0)
            try b.docPut("e", ["v": "changed here"])        // B's own change since: it must go up
            _ = try await f.sql("DELETE FROM S.checkpoints")
            let report = try await f.sync(b).dpRun()
            #expect(try await f.count("S.documents WHERE id = 'd'") == 0, "d is back on the server: \(report)")
            #expect(try b.branches(of: "d").isEmpty, "B kept its copy of d")
            #expect(try b.docBody("e") == ["v": "changed here"])
            _ = try await f.sync(a).dpRun()
            #expect(try a.docBody("e") == ["v": "changed here"], "B's change since the purge did not reach A")
            #expect(try b.docLeaves("e") == (try await f.serverLeaves("e")))
        }
    }

    static func scenario(_ name: String, loseCheckpoints: Bool) async throws {
        try await DocPromiseFixture.with(name) { f in
            let a = try f.store("a"), b = try f.store("b"), c = try f.store("c")
            try a.docPut("d", ["v": 1])
            try a.docPut("keep", ["v": 1])
            _ = try await f.sync(a).dpRun()
            _ = try await f.sync(b).dpRun()                 // B has d, live
            try a.docRemove("d")
            _ = try await f.sync(a).dpRun()
            _ = try await f.sync(a) { $0.tombstoneRetention = .zero }.dpRun()   // purged before B saw the deletion
            #expect(try await f.count("S.documents WHERE id = 'd'") == 0)
            if loseCheckpoints { _ = try await f.sql("UPDATE S.checkpoints SET pull = ''") }
            let pulled = try await f.sync(b).dpRun()
            print("PurgedLiveCopyTests \(name): B's pull \(pulled); B's branches of d \(try b.branches(of: "d").map(\.deleted))")
            try c.docPut("d", ["v": "again"])
            _ = try await f.sync(c).dpRun()
            _ = try await f.sync(b).dpRun()
            let serverLeaves = try await f.serverLeaves("d")
            #expect(try b.docLeaves("d") == serverLeaves, "B kept its copy of the purged incarnation: \(pulled)")
            #expect(try b.docBody("keep") == ["v": 1])
        }
    }
}
