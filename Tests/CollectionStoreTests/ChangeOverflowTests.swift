import CollectionStore
import FileStorageKit
import Foundation
import Testing
import TestSupport

/// A `changes()` consumer that falls far behind must still end with the collection as it is: the
/// stream may fold what waits into `.externalChange(items)`, but never drop a change.
@Suite struct CollectionChangeOverflowTests {
    /// More changes than a stream holds for a consumer that is behind (1,024).
    static let burst = 1_500

    @Test func aConsumerStalledPastTheBufferRebuildsTheCollection() async throws {
        let seed = TestSeed.make()
        print("CollectionChangeOverflowTests seed: \(seed) (replay with \(TestSeed.variable)=\(seed))")
        var rng = SeededGenerator(seed: seed)
        let notes = store(Note.self, in: MemoryFolder())
        try notes.createItem(Note(id: 0, title: "before the stream"))   // a stream starts from the items as they are
        var truth = try notes.loadItems()
        let stream = notes.changes()   // nobody reads it until every change is made

        // Item changes only: a `.replaced` carries the whole array, so a late one would hide a loss.
        var nextID = 1
        for step in 0..<Self.burst {
            switch Int.random(in: 0..<10, using: &rng) {
            case 5..<7 where !truth.isEmpty:
                let index = Int.random(in: truth.indices, using: &rng)
                try notes.updateItem(Note(id: truth[index].id, title: "u\(step)"), at: index)
            case 7..<9 where !truth.isEmpty:
                _ = try notes.deleteItem(at: Int.random(in: truth.indices, using: &rng))
            default:
                try notes.createItem(Note(id: nextID, title: "n\(nextID)"))
                nextID += 1
            }
            truth = try notes.loadItems()
        }
        let sentinel = Note(id: -1, title: "last")
        try notes.createItem(sentinel)
        truth = try notes.loadItems()

        let reader = Task { () -> (view: [Note], changes: Int, folded: Int) in
            var view = [Note(id: 0, title: "before the stream")]
            var changes = 0, folded = 0
            for await change in stream {
                changes += 1
                switch change {
                case .created(let item, let index):
                    view.insert(item, at: min(max(index, 0), view.count))
                case .updated(_, let new, let index):
                    if view.indices.contains(index) { view[index] = new }
                case .deleted(_, let index):
                    if view.indices.contains(index) { view.remove(at: index) }
                case .replaced(_, let new):
                    view = new
                case .externalChange(let items):
                    view = items
                    folded += 1
                case .failed:
                    break
                }
                if view.last == sentinel { break }
            }
            return (view, changes, folded)
        }
        // A deadline, never a condition: the stream already holds everything it will yield.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            reader.cancel()
        }
        let (view, changes, folded) = await reader.value
        watchdog.cancel()
        print("CollectionChangeOverflowTests: \(changes) changes read (\(folded) folded), view \(view.count) items, truth \(truth.count)")
        #expect(view == truth, "seed \(seed): the rebuilt collection differs from the file")
    }
}
