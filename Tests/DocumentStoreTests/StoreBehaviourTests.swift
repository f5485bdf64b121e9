import DocumentStore
import DocumentTestModel
import Foundation
import Testing
import TestSupport

/// Revisions, conflicts, deletes, the feed, lazy relationships, cycles and the Codable path.
@Suite struct StoreBehaviourTests {
    @Test func revisionsAreGenerationDashSHA256AndTheSameInEveryProcess() throws {
        let store = try TestStore("doc-revisions")
        let counter = Counter(identifier: "c", value: 1)
        try store.persistence.save(counter)
        let first = try #require(store.persistence.revision(of: counter))
        #expect(first == Revision.next(after: nil, canonicalBody: #"{"value":1}"#, deleted: false))
        // SHA-256 of (no parent) 0x00 "0" 0x00 {"value":1}, computed independently:
        // printf '\0000\0{"value":1}' | sha256sum
        #expect(first == "1-dcd590e23f8605207f96d04d5c12e576184d2416d24cccc26417948d78808613")
        #expect(first.count == 2 + 64 && first.dropFirst(2).allSatisfy { $0.isHexDigit && !$0.isUppercase })
        counter.value = 2
        try store.persistence.save(counter)
        let second = try #require(store.persistence.revision(of: counter))
        #expect(second.hasPrefix("2-") && second == Revision.next(after: first, canonicalBody: #"{"value":2}"#, deleted: false))
        #expect(try store.persistence.history(of: "c", revision: second) == [second, first])
    }

    @Test func aStaleInstanceConflictsWithBothVersionsAndRefreshResolvesIt() throws {
        let store = try TestStore("doc-conflict")
        try store.persistence.save(Counter(identifier: "c", value: 1))
        let other = try store.reopen()
        let mine: Counter = try #require(try store.persistence.load("c"))
        let theirs: Counter = try #require(try other.load("c"))
        theirs.value = 10
        try other.save(theirs)
        mine.value = 2
        do {
            try store.persistence.save(mine)
            Issue.record("a stale save must not win silently")
        } catch DocumentStoreError.conflict(let conflict) {
            #expect(conflict.identifier == "c" && conflict.kind == "Counter")
            #expect(conflict.attempted == ["value": 2] && conflict.current == ["value": 10])
            #expect(conflict.baseRevision != nil && conflict.currentRevision == other.revision(of: theirs))
        }
        let fresh: Counter = try #require(try store.persistence.refresh(mine))
        #expect(fresh !== mine && fresh.value == 10)
        fresh.value += 1
        try store.persistence.save(fresh)
        #expect(try store.persistence.snapshot("c")?.body == ["value": 11])
        #expect(throws: DocumentStoreError.self, "the replaced instance is stale") { try store.persistence.save(mine) }
    }

    @Test func aNewObjectUnderAnExistingIdentifierIsAConflict() throws {
        let store = try TestStore("doc-new-conflict")
        try store.persistence.save(Counter(identifier: "c", value: 1))
        let other = try store.reopen()
        do {
            try other.save(Counter(identifier: "c", value: 5))
            Issue.record("expected a conflict")
        } catch DocumentStoreError.conflict(let conflict) {
            #expect(conflict.baseRevision == nil && conflict.current == ["value": 1])
        }
        #expect(try store.count("changes") == 1)
    }

    @Test func deletesAreTombstonesInTheFeedAndAnIdentifierCanBeReused() throws {
        let store = try TestStore("doc-delete")
        let square = Square(side: 1)
        try store.persistence.save(square)
        try store.persistence.delete(square)
        let loaded: Square? = try store.persistence.load(square.identifier)
        #expect(loaded == nil)
        #expect(try store.reopen().load(Square.self, square.identifier) == nil)
        let feed = try store.persistence.changes()
        #expect(feed.map(\.deleted) == [false, true] && feed.map(\.identifier) == [square.identifier, square.identifier])
        #expect(feed[1].revision.hasPrefix("2-"))
        #expect(try store.persistence.query(Square.self).count() == 0)
        let again = Square(side: 2)
        again.identifier = square.identifier
        try store.reopen().save(again)
        #expect(try store.persistence.changes(since: feed[1].sequence).map(\.revision.first) == ["3"])
    }

    @Test func theFeedListsEveryRevisionInCommitOrderAndPages() throws {
        let store = try TestStore("doc-feed") { $0.revisionHistoryLimit = 20 }
        let counter = Counter(identifier: "c", value: 0)
        for value in 1...30 {
            counter.value = value
            try store.persistence.save(counter)
        }
        try store.persistence.save(Counter(identifier: "d", value: 0))
        let all = try store.persistence.changes(limit: 100)
        #expect(all.count == 31 && all.map(\.sequence) == Array(1...31))
        let page = try store.persistence.changes(since: 10, limit: 5)
        #expect(page.map(\.sequence) == [11, 12, 13, 14, 15])
        #expect(try store.persistence.lastSequence() == 31)
        // Bounded history: the tree keeps 20 generations below its newest leaf (the newest and the 19
        // before it: generations 11 to 30), the feed every entry.
        #expect(try store.count("revisions") == 20 + 1)
    }

    @Test func unchangedBodiesWriteNothingAndNaNIsRefused() throws {
        let store = try TestStore("doc-unchanged")
        let item = Item(identifier: "i", body: ["x": 1.5])
        try store.persistence.save(item)
        try store.persistence.save(item)
        #expect(try store.count("changes") == 1)
        item.body = ["x": .double(.nan)]
        #expect(throws: DocumentStoreError.invalidValue(identifier: "i", path: "$.x", reason: "JSON has no NaN or infinity")) {
            try store.persistence.save(item)
        }
        item.body = [1, 2]
        #expect(throws: DocumentStoreError.self) { try store.persistence.save(item) }
        #expect(try store.persistence.snapshot("i")?.body == ["x": 1.5])
    }

    @Test func lazyReportsAMissingTargetAsATypedError() throws {
        let store = try TestStore("doc-lazy")
        let square = Square(side: 3)
        let label = Label(text: "big", square: square)
        try store.persistence.save(label)
        let other = try store.reopen()
        let loaded: Label = try #require(try other.load(label.identifier))
        #expect(!loaded.square.isLoaded && loaded.square.identifier == square.identifier)
        try store.persistence.delete(square)
        #expect(throws: DocumentStoreError.missingDocument(identifier: square.identifier, kind: "Square")) {
            _ = try loaded.square.get()
        }
        // A label whose target is a Circle: the wrong kind, reported.
        let circle = Circle(radius: 1)
        try store.persistence.save(circle)
        try store.persistence.save(Item(identifier: "wrong", body: ["text": "odd", "square": .string(circle.identifier)]))
        _ = try store.persistence.snapshot("wrong")
        let fake = try #require(try Label(with: ["text": "odd", "square": .string(circle.identifier)], from: other))
        #expect(throws: DocumentStoreError.wrongKind(identifier: circle.identifier, expected: "Square", found: "Circle")) {
            _ = try fake.square.get()
        }
        #expect(try Label(text: "none", square: nil).square.get() == nil)
    }

    @Test func cyclesOfDrivenSavesEndAndEagerLoadCyclesAreReported() throws {
        let store = try TestStore("doc-cycles")
        let a = Node(identifier: "a", name: "A")
        let b = Node(identifier: "b", name: "B")
        a.next.set(b)
        b.next.set(a)
        try store.persistence.save(a)
        #expect(try store.count("documents") == 2)
        let other = try store.reopen()
        let loadedA: Node = try #require(try other.load("a"))
        let loadedB = try #require(try loadedA.next.get())
        #expect(try loadedB.next.get() === loadedA)
        let x = EagerNode(identifier: "x")
        let y = EagerNode(identifier: "y")
        x.partner = y
        y.partner = x
        try store.persistence.save(x)
        #expect(throws: DocumentStoreError.cyclicLoad(identifier: "x")) {
            let _: EagerNode? = try store.reopen().load("x")
        }
    }

    @Test func codablePersistableNeedsNoHandWrittenJSON() throws {
        let store = try TestStore("doc-codable")
        let created = Date(timeIntervalSinceReferenceDate: 12345.25)
        let note = Note(text: "hello \"world\"\n", tags: ["a", "b"], created: created, link: URL(string: "https://example.com/x?y=1"),
                        attachment: Data([0, 1, 2, 255]))
        try store.persistence.save(note)
        let loaded: Note = try #require(try store.reopen().load(note.identifier))
        #expect(loaded.text == note.text && loaded.tags == ["a", "b"] && loaded.created == created)
        #expect(loaded.link == note.link && loaded.attachment == Data([0, 1, 2, 255]))
        #expect(loaded.identifier == note.identifier)
        #expect(try store.persistence.query(Note.self).where(Field("tags").contains("b")).count() == 1)
    }

    @Test func transactionsCommitSeveralRootsTogetherOrNotAtAll() throws {
        struct Refused: Error {}
        let store = try TestStore("doc-transaction")
        #expect(throws: Refused.self) {
            try store.persistence.transaction { p in
                try p.save(Square(side: 1))
                try p.save(Circle(radius: 1))
                throw Refused()
            }
        }
        #expect(try store.count("documents") == 0 && store.count("changes") == 0)
        let square = Square(side: 1)
        try store.persistence.transaction { p in
            try p.save(square)
            try p.save(Circle(radius: 1))
        }
        #expect(try store.count("documents") == 2 && store.persistence.revision(of: square) != nil)
    }
}
