import CollectionStore
import Foundation
import TestSupport

/// The Documents-directory tutorial's example collection, as `OriginalExamplesTests` declares it.
struct FlashCardDeck: Writeable {
    var name: String
    var cards: [String]
}

/// `tutorial-decks [NAME...]`: the tutorial's `DataPersistence(filename: "fileName.plist")`, in the
/// documents folder its defaults give (the test sets this process's `HOME`). Prints `file <path>`
/// and `loaded <names, comma-separated>`, then appends a deck with no cards for each NAME.
func tutorialDecks(_ names: [String]) throws(DataPersistenceError) {
    let persistence = DataPersistence<FlashCardDeck>(filename: "fileName.plist")
    print("file \(persistence.url.path)")
    print("loaded \(try persistence.loadItems().map(\.name).joined(separator: ","))")
    for name in names { try persistence.createItem(FlashCardDeck(name: name, cards: [])) }
}

/// `tutorial-failures FILE`: each of the tutorial's five non-throwing calls once, with no `onError`
/// set, on a file the test damaged: each prints what it returned, and each failure must be one line on
/// standard error.
func tutorialFailures(_ persistence: DataPersistence<CollectionProbeItem>) {
    let item = CollectionProbeItem(process: 0, sequence: 0)
    print("update(_:with:) returned \(persistence.update(item, with: item))")
    print("update(_:at:) returned \(persistence.update(item, at: 0))")
    print("hasItemBeenSaved(_:) returned \(persistence.hasItemBeenSaved(item))")
    persistence.synchronize([item])
    print("synchronize(_:) returned")
    persistence.removeAll()
    print("removeAll() returned")
}
