import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

/// The identity map inside transactions: one instance per document in a transaction, and nothing a
/// rolled-back transaction saved, loaded or refreshed left behind in the map.
@Suite struct TransactionIdentityTests {
    struct Refused: Error {}

    @Test func aLoadOrQueryAfterASaveInTheSameTransactionReturnsTheSavedObject() throws {
        let store = try TestStore("doc-tx-same")
        let square = Square(side: 3)
        let (loaded, fetched) = try store.persistence.transaction { t -> (Square?, [Square]) in
            try t.save(square)
            #expect(t.isCached(identifier: square.identifier))
            return (try t.load(square.identifier), try t.query(Square.self).fetch())
        }
        #expect(loaded === square, "a load in the transaction made a second instance")
        #expect(fetched.count == 1 && fetched.first === square, "a query in the transaction made a second instance")
        #expect(try store.persistence.load(Square.self, square.identifier) === square)
        // The saved object is the map's instance: saving it again is no conflict.
        try store.persistence.save(square)
    }

    @Test func aGraphSavedInATransactionLoadsAsItsOwnObjects() throws {
        let store = try TestStore("doc-tx-graph")
        store.persistence.register(persistableKind: VennDiagram.self)
        let venn = VennDiagram(left: Circle(radius: 1), right: Circle(radius: 2))
        let again = try store.persistence.transaction { t -> VennDiagram? in
            try t.save(venn)
            return try t.load(venn.identifier)
        }
        #expect(again === venn)
        #expect(try store.persistence.load(Circle.self, venn.left.identifier) === venn.left)
    }

    @Test func anObjectLoadedInATransactionIsTheOneSavedAndCachedAfterCommit() throws {
        let store = try TestStore("doc-tx-loaded")
        try store.reopen().save(Counter(identifier: "c", value: 1))
        let counter = try store.persistence.transaction { t -> Counter in
            let counter: Counter = try #require(try t.load("c"))
            #expect(try t.load(Counter.self, "c") === counter)
            counter.value = 2
            try t.save(counter)
            return counter
        }
        #expect(try store.persistence.load(Counter.self, "c") === counter)
        counter.value = 3
        try store.persistence.save(counter)
        #expect(try store.persistence.snapshot("c")?.body == ["value": 3])
    }

    @Test func aRolledBackTransactionLeavesNoUncommittedObjectInTheMap() throws {
        let store = try TestStore("doc-tx-rollback")
        let square = Square(side: 1)
        #expect(throws: Refused.self) {
            try store.persistence.transaction { t in
                try t.save(square)
                let inside: Square? = try t.load(square.identifier)
                #expect(inside === square)
                throw Refused()
            }
        }
        #expect(try store.persistence.snapshot(square.identifier) == nil)
        #expect(!store.persistence.isCached(identifier: square.identifier), "a document never written is cached")
        #expect(try store.persistence.load(Square.self, square.identifier) == nil, "a document never written is served")
        #expect(store.persistence.revision(of: square) == nil, "the square kept a revision it never got")
        // Saving it for real works: it is a new object again, not one based on a phantom revision.
        try store.persistence.save(square)
        #expect(try store.persistence.snapshot(square.identifier) != nil)
    }

    @Test func aRolledBackSaveKeepsTheRevisionTheObjectHadBefore() throws {
        let store = try TestStore("doc-tx-rollback-revision")
        let counter = Counter(identifier: "c", value: 1)
        try store.persistence.save(counter)
        let before = try #require(store.persistence.revision(of: counter))
        #expect(throws: Refused.self) {
            try store.persistence.transaction { t in
                counter.value = 2
                try t.save(counter)
                #expect(t.revision(of: counter) != before)
                throw Refused()
            }
        }
        #expect(store.persistence.revision(of: counter) == before)
        counter.value = 5
        try store.persistence.save(counter)
        #expect(try store.persistence.snapshot("c")?.body == ["value": 5])
    }

    @Test func anObjectLoadedInARolledBackTransactionIsNotCached() throws {
        let store = try TestStore("doc-tx-rollback-load")
        try store.reopen().save(Counter(identifier: "c", value: 1))
        var held: Counter?
        #expect(throws: Refused.self) {
            try store.persistence.transaction { t in
                held = try t.load("c")
                #expect(held != nil && t.isCached(identifier: "c"))
                throw Refused()
            }
        }
        // Still held, yet not in the map: the transaction that loaded it never committed.
        #expect(held != nil && !store.persistence.isCached(identifier: "c"))
    }

    @Test func aDeleteInATransactionHidesTheObjectFromLoadsInItAndARollbackRestoresIt() throws {
        let store = try TestStore("doc-tx-delete")
        let counter = Counter(identifier: "c", value: 1)
        try store.persistence.save(counter)
        let before = try #require(store.persistence.revision(of: counter))
        #expect(throws: Refused.self) {
            try store.persistence.transaction { t in
                try t.delete(counter)
                #expect(try t.load(Counter.self, "c") == nil, "a deleted document is served in its own transaction")
                #expect(!t.isCached(identifier: "c"))
                // A refresh inside sees the deletion; the rollback must undo what it did to the map.
                #expect(try t.refresh(counter) == nil)
                throw Refused()
            }
        }
        #expect(try store.persistence.load(Counter.self, "c") === counter, "the rollback lost the committed instance")
        #expect(store.persistence.revision(of: counter) == before)
        counter.value = 2
        try store.persistence.save(counter)
        #expect(try store.persistence.snapshot("c")?.body == ["value": 2])
    }

    @Test func aRefreshInARolledBackTransactionDoesNotReplaceTheCommittedInstance() throws {
        let store = try TestStore("doc-tx-refresh")
        let counter = Counter(identifier: "c", value: 1)
        try store.persistence.save(counter)
        let stale = try store.reopen()
        let other: Counter = try #require(try stale.load("c"))
        counter.value = 7
        try store.persistence.save(counter)
        #expect(throws: Refused.self) {
            try stale.transaction { t in
                let fresh: Counter = try #require(try t.refresh(other))
                #expect(try fresh !== other && fresh.value == 7 && t.load(Counter.self, "c") === fresh)
                throw Refused()
            }
        }
        // The refresh was not committed: `other` is still the instance, at its old revision.
        #expect(try stale.load(Counter.self, "c") === other)
        #expect(throws: DocumentStoreError.self) { try stale.save(other) }
    }
}
