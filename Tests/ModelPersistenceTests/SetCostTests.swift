import Foundation
@testable import FileStorageKit
import Testing
import TestSupport
@testable import ModelPersistence

/// What a set costs beyond its durable write: one read of the file, under the lock, and at most one
/// more on the change thread. The write's own event (the inotify hub knows the rename was this
/// document's) reloads nothing on the next get or set, while another writer's change still does. The
/// change thread's delivery of that event usually comes while the write is still finishing (syncing
/// the folder), and a read in that window goes to the file: the cache still holds the bytes before
/// the rename (`OwnWriteTests.aReadBetweenAnOwnRenameAndItsCacheSeesTheNewBytes`).
@Suite(.enabled(if: InotifyHub.shared != nil, "needs inotify"))
struct SetCostTests {
    @Test("each set reads the file once under the lock, and at most once more while its write finishes")
    func aSetReadsTheFileOnce() async throws {
        try await withTemporaryLocation { _ in
            let model = SomeModel(string: "first", bool: false, bool2: false)
            _ = model.string
            let document = try #require(model._$persistence.setup?.document)
            // The first use's write: wait for its event, then for memory to be fresh again.
            #expect(await waitUntil(timeout: .seconds(120)) { document.changeToken != 0 })
            #expect(await waitUntil(timeout: .seconds(120)) { _ = model.string; return model._$persistence.gate.isFresh })
            let reads = document.fileReadCount
            // The kernel's queue overflowing (other tests' events) makes every file count as changed.
            let overflows = InotifyHub.shared?.overflowMark()
            // A child process (another test's) that inherited a write's temporary file and closes it
            // after the rename counts as an outside change too: one more read each.
            let lateCloses = document.monitor.closeWriteEvents
            let sets = 20
            for i in 1...sets {
                let before = document.changeToken
                model.string = "set \(i)"
                // Each set's own event, then a get that would reload if the event meant a change.
                #expect(await waitUntil(timeout: .seconds(120)) { document.changeToken != before })
                #expect(model.string == "set \(i)")
            }
            // One read per set under the lock, and at most one by the change thread while the set's
            // write finishes (a late delivery may add one more).
            if let overflows, InotifyHub.shared?.overflowed(since: overflows) == false {
                let late = document.monitor.closeWriteEvents - lateCloses
                #expect(document.fileReadCount - reads <= 2 * sets + 1 + late)
            }
            #expect(document.fileReadCount - reads >= sets)
            #expect(try storedDictionary(SomeModel.url)["string"] == .string("set \(sets)"))
        }
    }

    @Test("after a set, another writer's change is still read: by the next get and by the next set")
    func anotherWritersChangeAfterASetIsRead() async throws {
        try await withTemporaryLocation { _ in
            let model = SomeModel(string: "mine", bool: false, bool2: false)
            _ = model.string
            for round in 1...5 {
                model.bool = round % 2 == 0
                // Another writer (a second instance is another document) changes the other property.
                let other = SomeModel(string: "", bool: false, bool2: false)
                other.string = "theirs \(round)"
                #expect(await waitUntil(timeout: .seconds(120)) { model.string == "theirs \(round)" })
                model.bool = round % 2 != 0
                let stored = try storedDictionary(SomeModel.url)
                #expect(stored["string"] == .string("theirs \(round)"))
                #expect(stored["bool"] == .bool(round % 2 != 0))
            }
        }
    }
}
