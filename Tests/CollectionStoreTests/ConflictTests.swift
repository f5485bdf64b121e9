import CollectionStore
import Foundation
import Testing
import TestSupport

/// Indexes refer to the items as the caller last loaded them; another writer's changes never make
/// an index land on the wrong item, and every instance sees the newest file.
@Suite struct ConflictTests {
    @Test func indexOfAChangedItemIsAConflictAndTouchesNothing() throws {
        let temp = try TemporaryFolder(prefix: "collection-conflict")
        let mine = store(Note.self, in: temp)
        let theirs = store(Note.self, in: temp)
        for id in 1...3 { try mine.createItem(Note(id: id, title: "n\(id)")) }
        #expect(try mine.loadItems().map(\.id) == [1, 2, 3])

        // Another instance (standing in for another process) deletes the first item: every index shifts.
        try theirs.deleteItem(id: 1)
        let before = try Data(contentsOf: mine.url)
        for attempt in ["update", "delete"] {
            let refused = failure {
                if attempt == "update" { try mine.updateItem(Note(id: 99, title: "meant for n1"), at: 0) } else { try mine.deleteItem(at: 1) }
            }
            guard case .indexConflict(let index, let path)? = refused else {
                Issue.record("\(attempt) at a stale index must be refused: \(String(describing: refused))")
                continue
            }
            #expect(index == (attempt == "update" ? 0 : 1))
            #expect(path == mine.url.path)
        }
        #expect(try Data(contentsOf: mine.url) == before, "a conflict writes nothing")
        #expect(try theirs.loadItems().map(\.id) == [2, 3])

        // After loading again the same index means the new item there.
        #expect(try mine.loadItems().map(\.id) == [2, 3])
        #expect(try mine.deleteItem(at: 0).id == 2)
        #expect(try theirs.loadItems().map(\.id) == [3])
    }

    @Test func indexStillValidWhenOthersOnlyAppended() throws {
        let temp = try TemporaryFolder(prefix: "collection-conflict")
        let mine = store(Note.self, in: temp)
        let theirs = store(Note.self, in: temp)
        for id in 1...2 { try mine.createItem(Note(id: id, title: "n\(id)")) }
        _ = try mine.loadItems()
        try theirs.createItem(Note(id: 3, title: "appended elsewhere"))
        try mine.updateItem(Note(id: 1, title: "changed"), at: 0)
        #expect(try theirs.loadItems().map(\.title) == ["changed", "n2", "appended elsewhere"],
                "the other instance's item is kept and the right item changed")
    }

    @Test func aCreateKeepsItemsAnotherInstanceAddedMeanwhile() throws {
        let temp = try TemporaryFolder(prefix: "collection-conflict")
        let a = store(Note.self, in: temp)
        let b = store(Note.self, in: temp)
        for id in 0..<20 {
            try (id % 2 == 0 ? a : b).createItem(Note(id: id, title: "n\(id)"))
        }
        #expect(try a.loadItems().map(\.id) == Array(0..<20))
    }

    @Test func changesStreamReportsOwnAndOtherWriters() async throws {
        let temp = try TemporaryFolder(prefix: "collection-changes")
        let mine = store(Note.self, in: temp)
        let theirs = store(Note.self, in: temp)
        let collector = ChangeCollector(mine.changes())
        let a = Note(id: 1, title: "a"), b = Note(id: 1, title: "b"), c = Note(id: 2, title: "c")

        // In async code the compiler picks the async forms, which wait for the lock without blocking.
        try await mine.async.createItem(a)
        try await mine.async.updateItem(b, at: 0)
        try await mine.async.transaction { $0.append(c) }
        #expect(await collector.wait(for: 3) == [
            .created(a, index: 0),
            .updated(old: a, new: b, index: 0),
            .replaced(old: [b], new: [b, c]),
        ], "this instance's own writes, each told once and never as an external change")

        // Another writer's change arrives without this instance doing anything: its watcher polls
        // the file's change token.
        try await theirs.async.deleteItem(id: 2)
        let all = await collector.wait(for: 4)
        #expect(all.dropFirst(3) == [.externalChange([b])], "all changes: \(all)")
    }

    @Test func asyncWritersOnTwoInstancesLoseNothing() async throws {
        let temp = try TemporaryFolder(prefix: "collection-async")
        let stores = [store(Note.self, in: temp), store(Note.self, in: temp)]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let notes = stores[writer % 2]
                    for n in 0..<25 { try await notes.async.createItem(Note(id: writer * 100 + n, title: "w\(writer)")) }
                }
            }
            try await group.waitForAll()
        }
        let ids = try stores[0].loadItems().map(\.id)
        #expect(ids.count == 100 && Set(ids).count == 100, "\(ids.count) items")
        for writer in 0..<4 {
            #expect(ids.filter { $0 / 100 == writer } == Array(writer * 100..<writer * 100 + 25), "writer \(writer)'s items in order")
        }
        #expect(try Data(contentsOf: stores[0].url) == foundationBytes(stores[1].loadItems()))
        #expect(try await stores[1].async.deleteItem(id: 0)?.id == 0)
        #expect(try await stores[0].async.updateItem(Note(id: 1, title: "changed")))
        var refused: DataPersistenceError?
        do {
            try await stores[0].async.updateItem(Note(id: 2, title: "x"), at: 99)
        } catch {
            refused = error
        }
        guard case .indexOutOfRange(99, _)? = refused else {
            Issue.record("an index outside what was loaded must be refused: \(String(describing: refused))")
            return
        }
    }
}
