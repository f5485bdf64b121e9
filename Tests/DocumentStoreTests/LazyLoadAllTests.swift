@testable import DocumentStore
import Foundation
import GRDB
import Testing
import TestSupport

/// `loadAll(kind:)` builds objects only as it is iterated, from one snapshot, through the identity map.
@Suite struct LazyLoadAllTests {
    /// A store with `count` tallies, numbered from 0, saved and released.
    static func store(_ prefix: String, count: Int) throws -> TestStore {
        let store = try TestStore(prefix)
        try store.persistence.transaction { persistence in
            for index in 0..<count { try persistence.save(Tally(identifier: Tally.identifier(index), number: index)) }
        }
        return store
    }

    @Test func nothingIsReadOrBuiltBeforeIterationAndABreakBuildsNothingPastIt() throws {
        let store = try Self.store("lazy-early", count: 50)
        let persistence = store.persistence
        #expect(persistence.identityMap.liveCount == 0)
        let all = try persistence.loadAll(kind: Tally.self, pageSize: 8)
        #expect(Tally.built(in: persistence) == 0 && persistence.identityMap.liveCount == 0, "loadAll builds nothing")
        var held: [Tally] = []
        var cursor = all.makeIterator()
        while let tally = try cursor.next() {
            held.append(tally)
            if held.count == 5 { break }
        }
        #expect(held.map(\.number) == [0, 1, 2, 3, 4])
        #expect(Tally.built(in: persistence) == 5, "the page read 8 rows; only 5 objects were built")
        #expect(persistence.identityMap.liveCount == 5)
        #expect(!persistence.isCached(identifier: Tally.identifier(5)))
        #expect(held.allSatisfy { persistence.isCached(identifier: $0.identifier) })
        // Breaking off across a page boundary too.
        var iterator = try persistence.loadAll(kind: Tally.self, pageSize: 8).makeIterator()
        var more: [Tally] = []
        for _ in 0..<11 { if let next = try iterator.next() { more.append(next) } }
        #expect(more.map(\.number) == Array(0..<11))
        #expect(Tally.built(in: persistence) == 11, "5 came from the identity map; 6 were built")
    }

    @Test func aLazilyLoadedObjectIsTheSameInstanceAsOneLoadedDirectly() throws {
        let store = try Self.store("lazy-identity", count: 20)
        let persistence = store.persistence
        let direct: Tally = try #require(try persistence.load(Tally.identifier(7)))
        let built = Tally.built(in: persistence)
        let lazily = try persistence.loadAll(kind: Tally.self, pageSize: 4).first { $0.number == 7 }
        #expect(lazily === direct)
        #expect(Tally.built(in: persistence) == built + 7, "0...6 were built; 7 came from the map")
        // And the other way round: loaded lazily first, then directly.
        let first = try #require(try persistence.loadAll(kind: Tally.self).first { $0.number == 15 })
        let loaded: Tally? = try persistence.load(Tally.identifier(15))
        #expect(loaded === first)
    }

    @Test func iterationSeesOneSnapshotWhileASecondWriterChangesTheStore() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("LazyLoadAllTests.iterationSeesOneSnapshot seed: \(seed)")
        var random = SeededGenerator(seed: seed)
        let count = 60
        let store = try Self.store("lazy-snapshot", count: count)
        let reader = store.persistence
        let writer = try store.reopen()   // another connection, as another process would be
        var iterator = try reader.loadAll(kind: Tally.self, pageSize: 7).makeIterator()
        var seen: [Int] = []
        let stop = Int.random(in: 1..<(count - 10), using: &random)
        while seen.count < stop, let next = try iterator.next() { seen.append(next.number) }
        // The second writer deletes documents not reached yet, changes others, and adds new ones
        // between and after the existing identifiers; its saves do not wait for the reader.
        let ahead = Array(stop..<count).shuffled(using: &random)
        let deleted = Set(ahead.prefix(5))
        let changed = Set(ahead.dropFirst(5).prefix(5))
        try writer.transaction { persistence in
            for index in deleted {
                let tally: Tally = try #require(try persistence.load(Tally.identifier(index)))
                try persistence.delete(tally)
            }
            for index in changed {
                let tally: Tally = try #require(try persistence.load(Tally.identifier(index)))
                tally.number = 1000 + index
                try persistence.save(tally)
            }
            for index in 0..<10 {
                try persistence.save(Tally(identifier: Tally.identifier(stop) + "-new\(index)", number: 2000 + index))
            }
        }
        #expect(try writer.query(Tally.self).count() == count - 5 + 10, "the writer committed")
        while let next = try iterator.next() { seen.append(next.number) }
        #expect(seen == Array(0..<count), "the snapshot of when iteration began: no deletion, change or addition")
        // A new iteration sees the new state.
        let after = try reader.loadAll(kind: Tally.self).map(\.number)
        #expect(after.count == count - 5 + 10)
        #expect(Set(after).isDisjoint(with: deleted))
    }

    @Test func insideATransactionItSeesItsWritesAndMustEndThere() throws {
        let store = try Self.store("lazy-transaction", count: 10)
        let persistence = store.persistence
        var leftOver: DocumentSequence<Tally>.Iterator?
        try persistence.transaction { persistence in
            try persistence.save(Tally(identifier: Tally.identifier(10), number: 10))
            let inside = try persistence.loadAll(kind: Tally.self, pageSize: 3).map(\.number)
            #expect(inside == Array(0...10), "the transaction's own save is seen")
            var iterator = try persistence.loadAll(kind: Tally.self, pageSize: 3).makeIterator()
            _ = try iterator.next()
            leftOver = iterator
        }
        var iterator = try #require(leftOver)
        #expect(throws: DocumentStoreError.self) { _ = try iterator.next() }
    }

    /// Issue 48 item 6: a `for … in` loop used to end early at a document that cannot be built, its
    /// error left in `failure` for a caller who might never look. Every way to iterate now throws it.
    @Test func aDocumentThatCannotBeBuiltIsThrownByEveryWayToIterate() throws {
        let store = try Self.store("lazy-failure", count: 6)
        try Self.addMalformed(to: store)
        let all = try store.persistence.loadAll(kind: Tally.self)
        var seen: [Int] = []
        #expect(throws: Self.malformed) { try all.forEach { seen.append($0.number) } }
        #expect(seen == [0, 1, 2], "forEach throws at the malformed document")
        #expect(throws: Self.malformed) { _ = try all.map(\.number) }
        #expect(throws: Self.malformed) { _ = try Array(all) }
        #expect(throws: Self.malformed) { _ = try all.first { $0.number == 5 } }
        #expect(try all.first { $0.number == 1 }?.number == 1, "nothing past the one found is read")
        // A cursor throws, then goes on after it.
        var iterator = all.makeIterator()
        var thrown: [Int] = []
        var errors = 0
        while true {
            do {
                guard let tally = try iterator.next() else { break }
                thrown.append(tally.number)
            } catch {
                errors += 1
            }
        }
        #expect(thrown == [0, 1, 2, 3, 4, 5] && errors == 1, "next() throws, then goes on after it")
        #expect(throws: DocumentStoreError.self) { _ = try store.persistence.loadAllAtOnce(kind: Tally.self) }
    }

    static let malformed = DocumentStoreError.malformedJSON(identifier: "tally-0002-bad", offset: 13,
                                                            reason: "unexpected end of text in an array")

    /// A document after tally 2 whose body does not parse.
    static func addMalformed(to store: TestStore) throws {
        let queue = try DatabaseQueue(path: store.url.path)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO documents(id, kind, revision, deleted, body) VALUES ('\(Tally.identifier(2))-bad', 'Tally', '1-x', 0, '{\"number\": [1')")
        }
        try queue.close()
    }

    @Test func forTryAwaitThrowsAtADocumentThatCannotBeBuilt() async throws {
        let store = try Self.store("lazy-failure-async", count: 6)
        try Self.addMalformed(to: store)
        var awaited: [Int] = []
        await #expect(throws: Self.malformed) {
            for try await tally in try store.persistence.loadAll(kind: Tally.self) { awaited.append(tally.number) }
        }
        #expect(awaited == [0, 1, 2], "for try await throws at the malformed document")
    }

    @Test func theEagerFormBuildsEverythingAtOnce() throws {
        let store = try Self.store("lazy-eager", count: 12)
        let all = try store.persistence.loadAllAtOnce(kind: Tally.self)
        #expect(all.map(\.number) == Array(0..<12))
        #expect(Tally.built(in: store.persistence) == 12)
    }
}
