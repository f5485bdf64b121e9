import DocumentStore
import DocumentSync
import Foundation
import Testing
import TestSupport

/// A local purge must not hand out a feed position again. SQLite gives a new `changes` row the largest
/// position plus one, so when the documents a purge removed held the largest positions, the next local
/// change took one the push checkpoint had already passed, and was never pushed: "pushed 0 revisions",
/// run after run (the black-box tests of access control found it through `discardLocalChanges`; a
/// server's tombstone purge does the same).
@Suite(.serialized, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct SequenceAfterPurgeTests {
    /// Through the tombstone purge: the replica's last change is a deletion, the server purges it, the
    /// replica's pull removes its tombstone; its next document must still go up.
    @Test func aChangeAfterAPurgedLastChangeIsPushed() async throws {
        try await DocPromiseFixture.with("seqpurge") { f in
            let a = try f.store("a"), b = try f.store("b")
            try a.docPut("keep", ["v": 1])
            try a.docPut("gone", ["v": 1])
            _ = try await f.sync(a).dpRun()
            try a.docRemove("gone")                          // a's largest position: the tombstone
            _ = try await f.sync(a).dpRun()
            let before = try a.lastSequence()
            _ = try await f.sync(a) { $0.tombstoneRetention = .zero }.dpRun()
            _ = try await f.sync(a).dpRun()                  // pulls the purge record: the tombstone leaves a
            #expect(try a.branches(of: "gone").isEmpty)
            #expect(try a.lastSequence() >= before, "the purge lowered the feed's last position")
            try a.docPut("new", ["v": 2])
            let pushed = try await f.sync(a).dpRun()
            #expect(try await f.count("S.documents WHERE id = 'new'") == 1, "the new document never reached the server: \(pushed)")
            _ = try await f.sync(b).dpRun()
            #expect(try b.docBody("new") == ["v": 2])
        }
    }

    /// Through `discardLocalChanges(of:)`: the discarded document held the largest position.
    @Test func aChangeAfterADiscardedLastChangeIsPushed() async throws {
        try await DocPromiseFixture.with("seqdiscard") { f in
            let a = try f.store("a")
            try a.docPut("first", ["v": 1])
            try a.docPut("last", ["v": 1])
            _ = try await f.sync(a).dpRun()
            _ = try await f.sync(a).discardLocalChanges(of: ["last"])   // comes back from the server
            try a.docPut("new", ["v": 2])
            let pushed = try await f.sync(a).dpRun()
            #expect(try await f.count("S.documents WHERE id = 'new'") == 1, "the new document never reached the server: \(pushed)")
            #expect(try a.docBody("last") == ["v": 1])
        }
    }
}
