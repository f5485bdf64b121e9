import CollectionStore
import FileStorageKit
import Foundation
import Testing
import TestSupport

/// The original design's operations, each checked against the file's bytes and Foundation's encoder.
@Suite struct CRUDTests {
    @Test func createAppendsAndTheFileIsFoundationsEncoding() throws {
        let temp = try TemporaryFolder(prefix: "collection-crud")
        let notes = store(Note.self, in: temp, subfolder: "missing/nested")   // folders made on demand
        #expect(try notes.loadItems() == [], "no file yet reads as no items")
        #expect(!FileManager.default.fileExists(atPath: notes.url.path), "reading creates nothing")

        let items = [Note(id: 1, title: "milk"), Note(id: 2, title: "bread", due: Date(timeIntervalSince1970: 1_700_000_000))]
        for item in items { try notes.createItem(item) }
        #expect(try notes.loadItems() == items)
        #expect(try Data(contentsOf: notes.url) == foundationBytes(items))
        #expect(try PropertyListDecoder().decode([Note].self, from: Data(contentsOf: notes.url)) == items)
        #expect(permissionBits(notes.url) == 0o600)
        #expect(permissionBits(notes.url.deletingLastPathComponent()) == 0o700)
        #expect(try notes.containsItem(items[1]))
        #expect(try !notes.containsItem(Note(id: 3, title: "eggs")))
    }

    @Test func updateAndDeleteByValueAndIndex() throws {
        let temp = try TemporaryFolder(prefix: "collection-crud")
        let notes = store(Note.self, in: temp)
        let a = Note(id: 1, title: "a"), b = Note(id: 2, title: "b"), c = Note(id: 3, title: "c")
        for item in [a, b, c] { try notes.createItem(item) }
        _ = try notes.loadItems()

        let b2 = Note(id: 2, title: "B")
        #expect(try notes.replaceItem(b, with: b2))
        #expect(try !notes.replaceItem(b, with: b2), "b is gone: nothing to update, nothing written")
        let c2 = Note(id: 3, title: "C")
        try notes.updateItem(c2, at: 2)
        #expect(try notes.deleteItem(at: 0) == a)
        #expect(try notes.loadItems() == [b2, c2])
        #expect(try Data(contentsOf: notes.url) == foundationBytes([b2, c2]))

        #expect(throws: DataPersistenceError.self) { try notes.updateItem(a, at: 5) }
        let negative = failure { try notes.deleteItem(at: -1) }
        guard case .indexOutOfRange(let index, let count)? = negative else {
            Issue.record("a negative index must throw indexOutOfRange, not \(String(describing: negative))")
            return
        }
        #expect(index == -1 && count == 2)
    }

    @Test func identifiableItemsUpdateAndDeleteById() throws {
        let memory = MemoryFolder()   // no real file is the point here
        let notes = store(Note.self, in: memory)
        for id in 1...3 { try notes.createItem(Note(id: id, title: "n\(id)")) }
        #expect(try notes.updateItem(Note(id: 2, title: "two")))
        #expect(try !notes.updateItem(Note(id: 9, title: "nine")))
        #expect(try notes.item(id: 2)?.title == "two")
        #expect(try notes.deleteItem(id: 1)?.title == "n1")
        #expect(try notes.deleteItem(id: 1) == nil)
        #expect(try notes.loadItems().map(\.id) == [2, 3])
    }

    @Test func synchronizeReplacesOnlyWhatTheCallerSaw() throws {
        let temp = try TemporaryFolder(prefix: "collection-crud")
        let mine = store(Note.self, in: temp)
        let other = store(Note.self, in: temp)
        for id in 1...3 { try mine.createItem(Note(id: id, title: "n\(id)")) }
        let loaded = try mine.loadItems()
        try mine.replaceAllItems(with: loaded.reversed())                      // reorder: allowed
        #expect(try other.loadItems().map(\.id) == [3, 2, 1])

        try other.createItem(Note(id: 4, title: "from another instance"))
        let before = try Data(contentsOf: mine.url)
        let refused = failure { try mine.replaceAllItems(with: loaded) }
        guard case .outOfDate(let path)? = refused else {
            Issue.record("synchronize must refuse to drop the other instance's item: \(String(describing: refused))")
            return
        }
        #expect(path == mine.url.path)
        #expect(try Data(contentsOf: mine.url) == before, "a refused synchronize writes nothing")
        let fresh = try mine.loadItems()
        try mine.replaceAllItems(with: fresh.sorted { $0.id < $1.id })
        #expect(try other.loadItems().map(\.id) == [1, 2, 3, 4])
    }

    @Test func removeAllLeavesAnEmptyArray() throws {
        let temp = try TemporaryFolder(prefix: "collection-crud")
        let notes = store(Note.self, in: temp)
        try notes.createItem(Note(id: 1, title: "x"))
        try notes.deleteAllItems()
        #expect(try notes.loadItems() == [])
        #expect(try Data(contentsOf: notes.url) == foundationBytes([Note]()))
    }

    @Test func transactionIsOneWriteAndOnlyWhenSomethingChanged() throws {
        let temp = try TemporaryFolder(prefix: "collection-crud")
        let notes = store(Note.self, in: temp)
        try notes.createItem(Note(id: 0, title: "first"))
        let writesBefore = notes.writeCount
        let count = try notes.transaction { items -> Int in
            for id in 1...1000 { items.append(Note(id: id, title: "note \(id)", tag: id % 2 == 0 ? "even" : "odd")) }
            items.removeAll { $0.id % 10 == 0 }
            return items.count
        }
        #expect(count == 900)
        #expect(notes.writeCount == writesBefore + 1, "1000 appends and 100 removals in one write")
        #expect(try notes.loadItems().count == 900)
        try notes.transaction { _ in }
        #expect(notes.writeCount == writesBefore + 1, "an unchanged array is not written")

        struct Stop: Error {}
        let bytes = try Data(contentsOf: notes.url)
        #expect(throws: Stop.self) {
            try notes.transaction { items in
                items.removeAll()
                throw Stop()
            }
        }
        #expect(try Data(contentsOf: notes.url) == bytes, "a transaction that throws writes nothing")
        #expect(try Data(contentsOf: notes.url) == foundationBytes(notes.loadItems()))
    }

    @Test func badFilenamesAndFoldersGiveTypedErrors() throws {
        let temp = try TemporaryFolder(prefix: "collection-crud")
        for name in ["", ".", "..", "a/b"] {
            let bad = DataPersistence<Note>(filename: name, directory: .folder(temp.url))
            #expect(throws: DataPersistenceError.self) { try bad.createItem(Note(id: 1, title: "x")) }
            #expect(throws: DataPersistenceError.self) { _ = try bad.loadItems() }
        }
        #expect(try temp.entries().isEmpty, "nothing was written for a bad name")

        try FileManager.default.createDirectory(at: temp.file("folder.plist"), withIntermediateDirectories: false)
        let folder = store(Note.self, in: temp, "folder.plist")
        let noContents = failure { _ = try folder.loadItems() }
        guard case .noContentsAtPath(let path)? = noContents else {
            Issue.record("a folder has no contents to load: \(String(describing: noContents))")
            return
        }
        #expect(path.hasSuffix("folder.plist"))
    }

    @Test func delegateHearsSavesAndDeletes() throws {
        let memory = MemoryFolder()   // no real file is the point here
        let notes = store(Note.self, in: memory)
        let delegate = RecordingDelegate()
        notes.delegate = delegate
        try notes.createItem(Note(id: 1, title: "a"))
        try notes.updateItem(Note(id: 1, title: "b"))
        try notes.deleteItem(id: 1)
        #expect(delegate.events == [
            "saved \(Note(id: 1, title: "a"))", "saved \(Note(id: 1, title: "b"))", "deleted \(Note(id: 1, title: "b"))",
        ])
    }

    @Test func filesWrittenByFoundationAreReadAndExtended() throws {
        let temp = try TemporaryFolder(prefix: "collection-crud")
        let notes = store(Note.self, in: temp)
        let theirs = [Note(id: 7, title: "written by PropertyListEncoder", tag: "apple")]
        try PropertyListEncoder().encode(theirs).write(to: notes.url)
        #expect(try notes.loadItems() == theirs)
        try notes.createItem(Note(id: 8, title: "ours"))
        #expect(try Data(contentsOf: notes.url) == foundationBytes(theirs + [Note(id: 8, title: "ours")]))
    }

    /// The document's one re-entrancy rule: a read inside a transaction works; a mutation there is
    /// refused with a typed error (the transaction's write would overwrite it), and the transaction
    /// goes on; before, the second lock waited for its own holder.
    @Test func aMutationInsideATransactionIsRefusedAndAReadWorks() throws {
        let memory = MemoryFolder()
        let notes = store(Note.self, in: memory)
        try notes.createItem(Note(id: 1, title: "one"))
        var inner: DataPersistenceError?
        var seen: [Note] = []
        try notes.transaction { items in
            seen = try notes.loadItems()
            do {
                try notes.createItem(Note(id: 2, title: "lost"))
            } catch {
                inner = error as? DataPersistenceError
            }
            items.append(Note(id: 3, title: "three"))
        }
        #expect(seen.map(\.id) == [1])
        guard case .writingError(let cause)? = inner, case .nestedUpdate? = cause as? FileStorageError else {
            Issue.record("expected writingError(nestedUpdate), got \(String(describing: inner))")
            return
        }
        #expect(try notes.loadItems().map(\.id) == [1, 3])
    }
}
