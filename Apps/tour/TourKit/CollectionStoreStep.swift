import CollectionStore
import FileStorageKit
import Foundation

/// The CollectionStore scenario: the flashcards app's cards kept by `DataPersistence`.
///
/// Create, read, update and delete; the file checked against `PropertyListEncoder`; a second
/// instance's change turning a stale index into a conflict; a transaction; a damaged file left alone.
struct CollectionStoreStep: TourStep {
    var name: String { "CollectionStore" }
    var summary: String { "DataPersistence<Card>: CRUD, Foundation's bytes, an index conflict, a transaction, a damaged file" }

    struct Card: Codable, Equatable, Identifiable, Sendable {
        var id: Int
        var front: String
        var back: String
    }

    @MainActor func run(_ context: TourContext) async throws {
        // A folder that does not exist yet: the first write creates it.
        let folder = context.folder.appendingPathComponent("Documents/flashcards")
        let cards = DataPersistence<Card>(filename: "cards.plist", directory: .folder(folder))
        let words = [("hola", "hello"), ("gracias", "thank you"), ("adiós", "goodbye")]
        for (i, word) in words.enumerated() { try cards.createItem(Card(id: i + 1, front: word.0, back: word.1)) }
        var loaded = try cards.loadItems()
        context.say("DataPersistence<Card>(filename: \"cards.plist\"): 3 × createItem into a folder made on demand")
        context.say("loadItems(): " + loaded.map { "\($0.front)→\($0.back)" }.joined(separator: ", "))
        try check(loaded.count == 3, "expected 3 cards, found \(loaded.count)")
        try sameAsFoundation(cards, loaded, context)

        try cards.updateItem(Card(id: 2, front: "gracias", back: "thanks"), at: 1)
        try cards.deleteItem(id: 3)
        loaded = try cards.loadItems()
        context.say("updateItem(_:at: 1) and deleteItem(id: 3): " + loaded.map { "\($0.front)→\($0.back)" }.joined(separator: ", "))
        try check(loaded.map(\.back) == ["hello", "thanks"], "update or delete went wrong: \(loaded)")

        // Another instance (another process would do the same) deletes the first card: index 0 now
        // means a different card, so an update by the stale index is refused.
        let other = DataPersistence<Card>(filename: "cards.plist", directory: .folder(folder))
        try other.deleteItem(id: 1)
        do {
            try cards.updateItem(Card(id: 1, front: "hola", back: "hi"), at: 0)
            throw TourFailure("an update at a stale index went through")
        } catch let error as DataPersistenceError {
            guard case .indexConflict = error else { throw error }
            context.say("another instance deleted card 1; updateItem(_:at: 0) by the stale index: \(error)")
        }

        let before = try cards.loadItems().count
        let writes = cards.writeCount
        try cards.transaction { items in
            for n in 1...500 { items.append(Card(id: 100 + n, front: "word \(n)", back: "palabra \(n)")) }
        }
        loaded = try cards.loadItems()
        try check(cards.writeCount == writes + 1, "the transaction wrote \(cards.writeCount - writes) times")
        context.say("transaction { 500 appends }: \(before) → \(loaded.count) cards in one write")
        try sameAsFoundation(cards, loaded, context)

        let damaged = Data("not a property list".utf8)
        try damaged.write(to: cards.url)
        do {
            try cards.createItem(Card(id: 999, front: "lost?", back: "no"))
            throw TourFailure("createItem on a damaged file went through")
        } catch let error as DataPersistenceError {
            guard case .propertyListDecodingError = error else { throw error }
            try check(try Data(contentsOf: cards.url) == damaged, "the damaged file was changed")
            context.say("a damaged file: createItem throws and leaves it byte for byte:")
            context.say("  \(error)")
        }
    }

    private func sameAsFoundation(_ cards: DataPersistence<Card>, _ items: [Card], _ context: TourContext) throws {
        let bytes = try DurableFile.read(cards.url)
        try check(bytes == (try PropertyListEncoder().encode(items)), "the file is not what PropertyListEncoder writes")
        context.say("  \(bytes.count) bytes: exactly PropertyListEncoder().encode(items)")
    }
}
