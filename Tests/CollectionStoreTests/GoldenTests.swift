import CollectionStore
import Foundation
import Testing
import TestSupport

/// Issue 5, item 1: the file is what `Foundation.PropertyListEncoder().encode([T])` writes.
///
/// Each fixture in `Fixtures/CollectionStore/` was written by Foundation's encoder (see its
/// PROVENANCE.md); `COLLECTION_RECORD_FIXTURES=1` re-records them from Foundation, never from us.
/// The test builds the same array through `DataPersistence` operations and compares bytes.
@Suite struct GoldenTests {
    /// The original tutorial's item: an event with a name, a date and an identifier.
    struct Event: Codable, Equatable {
        var eventName: String
        var date: Date
        var identifier: String
        var attendees: [String]
        var price: Double?
    }

    /// A flashcard, as the flashcards app stores it.
    struct Card: Codable, Equatable, Identifiable {
        var id: UUID
        var deck: String
        var front: String
        var back: String
        var created: Date
        var reviews: Int
        var lastCorrect: Bool?
    }

    static let recording = ProcessInfo.processInfo.environment["COLLECTION_RECORD_FIXTURES"] == "1"

    /// Compares `file` with the fixture `name`, after checking the fixture is Foundation's encoding of `items`.
    func check<T: Codable & Equatable>(_ name: String, _ items: [T], file: URL) throws {
        let fixture = Fixtures.url("CollectionStore/\(name)")
        let foundation = try PropertyListEncoder().encode(items)
        if Self.recording { try foundation.write(to: fixture) }
        let golden = try Data(contentsOf: fixture)
        #expect(golden == foundation, "\(name): the fixture is no longer what PropertyListEncoder writes")
        let ours = try Data(contentsOf: file)
        if let difference = Fixtures.firstDifference(ours, golden) { Issue.record("\(name): \(difference)") }
        #expect(try PropertyListDecoder().decode([T].self, from: golden) == items)
    }

    @Test func events() throws {
        let temp = try TemporaryFolder(prefix: "collection-golden")
        let events = store(Event.self, in: temp, "events.plist")
        let base = Date(timeIntervalSinceReferenceDate: 700_000_000)
        let all = [
            Event(eventName: "Swift meetup", date: base, identifier: "E1", attendees: ["ana", "bo"], price: nil),
            Event(eventName: "Café ☕️ tasting", date: base + 86_400.5, identifier: "E2", attendees: [], price: 12.5),
            Event(eventName: "Planning", date: base - 3600, identifier: "E3", attendees: ["ana", "ana", "chen"], price: 0),
            Event(eventName: "Dropped", date: base, identifier: "E4", attendees: [], price: -1),
        ]
        for event in all { try events.createItem(event) }
        _ = try events.loadItems()
        try events.deleteItem(at: 3)
        var moved = all[0]
        moved.date = base + 7 * 86_400
        try events.updateItem(moved, at: 0)
        try check("events.plist", [moved, all[1], all[2]], file: events.url)
    }

    @Test func cards() throws {
        let temp = try TemporaryFolder(prefix: "collection-golden")
        let cards = store(Card.self, in: temp, "cards.plist")
        let created = Date(timeIntervalSince1970: 1_763_800_000)
        let words = [("hola", "hello"), ("gracias", "thank you"), ("¿dónde?", "where?"), ("𝄞 clave", "clef")]
        let all = words.enumerated().map { i, word in
            Card(id: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", i + 1))!, deck: "Spanish",
                 front: word.0, back: word.1, created: created + Double(i), reviews: i * 3, lastCorrect: i == 0 ? nil : i % 2 == 0)
        }
        try cards.transaction { $0 += all }
        var reviewed = all[2]
        reviewed.reviews += 1
        reviewed.lastCorrect = true
        try cards.updateItem(reviewed)
        try check("cards.plist", [all[0], all[1], reviewed, all[3]], file: cards.url)
    }

    @Test func integersAndTheEmptyArray() throws {
        let temp = try TemporaryFolder(prefix: "collection-golden")
        let numbers = store(Int.self, in: temp, "integers.plist")
        for n in [0, 1, -1, 255, 256, 65_535, 65_536, Int(Int32.max), Int.min, Int.max] { try numbers.createItem(n) }
        try check("integers.plist", [0, 1, -1, 255, 256, 65_535, 65_536, Int(Int32.max), Int.min, Int.max], file: numbers.url)

        let empty = store(String.self, in: temp, "empty.plist")
        try empty.createItem("gone")
        try empty.deleteAllItems()
        try check("empty.plist", [String](), file: empty.url)
    }
}
