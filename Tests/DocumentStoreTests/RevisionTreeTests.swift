import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

/// The package SPI a replicator uses: foreign revisions with their ancestry, branches, the winner
/// rule, and checkpoints written in the same transaction as the documents.
@Suite struct RevisionTreeTests {
    static func revision(after parent: String?, _ body: JSON) -> String {
        Revision.next(after: parent, canonicalBody: body.canonicalText, deleted: false)
    }

    @Test func aForeignRevisionExtendingTheCurrentOneBecomesCurrent() throws {
        let store = try TestStore("doc-tree-extend")
        let counter = Counter(identifier: "c", value: 1)
        try store.persistence.save(counter)
        let first = try #require(store.persistence.revision(of: counter))
        let second = Self.revision(after: first, ["value": 5])
        #expect(try store.persistence.insertForeign(ForeignRevision(identifier: "c", kind: "Counter", revision: second,
                                                                    ancestors: [first], deleted: false, body: ["value": 5])))
        #expect(try store.persistence.snapshot("c")?.body == ["value": 5])
        #expect(try store.persistence.branches(of: "c").map(\.revision) == [second])
        #expect(try !store.persistence.insertForeign(ForeignRevision(identifier: "c", kind: "Counter", revision: second,
                                                                     ancestors: [first], deleted: false, body: ["value": 5])),
                "a known revision is not inserted twice")
        #expect(throws: DocumentStoreError.self, "the local instance is now stale") {
            counter.value = 2
            try store.persistence.save(counter)
        }
    }

    @Test func concurrentEditsMakeBranchesAndEveryReplicaPicksTheSameWinner() throws {
        let store = try TestStore("doc-tree-conflict")
        let counter = Counter(identifier: "c", value: 1)
        try store.persistence.save(counter)
        let base = try #require(store.persistence.revision(of: counter))
        counter.value = 2
        try store.persistence.save(counter)
        let local = try #require(store.persistence.revision(of: counter))
        // A remote edit whose identifier sorts below the local one (half of all bodies do), so the local
        // branch is the winner and deleting it can be checked too.
        let remoteValue = try #require((3...64).first { Self.revision(after: base, ["value": .integer(Int64($0))]) < local })
        let remote = Self.revision(after: base, ["value": .integer(Int64(remoteValue))])
        try store.persistence.insertForeign(ForeignRevision(identifier: "c", kind: "Counter", revision: remote,
                                                            ancestors: [base], deleted: false, body: ["value": .integer(Int64(remoteValue))]))
        let branches = try store.persistence.branches(of: "c")
        #expect(Set(branches.map(\.revision)) == [local, remote])
        // Same generation: the greater identifier wins, on every replica.
        #expect(branches.first(where: \.isCurrent)?.revision == local)
        #expect(try store.persistence.snapshot("c")?.revision == local)
        let loser = branches.first { !$0.isCurrent }
        #expect(loser?.body == ["value": .integer(Int64(remoteValue))], "the losing branch keeps its body")
        // Deleting the winner lets the other branch win: a live leaf beats a deleted one.
        try store.persistence.delete(counter)
        #expect(try store.persistence.snapshot("c")?.revision == remote)
        #expect(try store.persistence.snapshot("c")?.body == ["value": .integer(Int64(remoteValue))])
        #expect(try store.persistence.branches(of: "c").count == 2, "the deletion is a leaf too")
    }

    @Test func aNewDocumentFromElsewhereAndItsCheckpointCommitTogether() throws {
        struct Refused: Error {}
        let store = try TestStore("doc-tree-checkpoint")
        let first = Self.revision(after: nil, ["value": 1])
        let second = Self.revision(after: first, ["value": 2])
        #expect(throws: Refused.self) {
            try store.persistence.transaction { p in
                try p.insertForeign(ForeignRevision(identifier: "r", kind: "Counter", revision: second, ancestors: [first],
                                                    deleted: false, body: ["value": 2]))
                try p.setCheckpoint("42", for: "pull")
                throw Refused()
            }
        }
        #expect(try store.persistence.checkpoint("pull") == nil && store.persistence.snapshot("r") == nil)
        try store.persistence.transaction { p in
            try p.insertForeign(ForeignRevision(identifier: "r", kind: "Counter", revision: second, ancestors: [first],
                                                deleted: false, body: ["value": 2]))
            try p.setCheckpoint("42", for: "pull")
        }
        #expect(try store.persistence.checkpoint("pull") == "42")
        #expect(try store.persistence.history(of: "r", revision: second) == [second, first])
        let loaded: Counter? = try store.persistence.load("r")
        #expect(loaded?.value == 2)
        #expect(try store.persistence.changes().map(\.revision) == [second])
    }
}
