import CollectionStore
import Foundation
import Testing
import TestSupport

// The Documents-directory tutorial (../shared/originals/004_e931dc1d7f622b1b.txt), as a user of this
// package writes it. The tutorial's `DataPersistence` class is this module's; what a user pastes is
// its calls, its `Writeable` items, a delegate with its `didDeleteItem`, and its `Directory` and
// `FileManager.getPath` helpers, copied below unchanged.
//
// One platform change, in every test: the stores are created with `directory: .folder(...)`. The
// tutorial's `DataPersistence(filename:)` puts the file in the app's Documents folder, which on
// Linux is `~/Documents/<app>` (`AppDirectories`, see Docs/CollectionStore.md); tests take their
// folder from their own configuration so parallel tests never share a file.

public enum Directory {
  case documentsDirectory
  case cachesDirectory
}

extension FileManager {
  // returns a URL to the documents directory for the app
  public static func getDocumentsDirectory() -> URL  {
    return FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
  }

  public static func getCachesDirectory() -> URL  {
    return FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
  }

  // function takes a filename as a parameter, appends to the document directory's URL and returns that path
  // this path will be used to write (save) date or read (retrieve) data
  public static func getPath(with filename: String, for directory: Directory) -> URL {
    switch directory {
    case .cachesDirectory:
      return getCachesDirectory().appendingPathComponent(filename)
    case .documentsDirectory:
      return getDocumentsDirectory().appendingPathComponent(filename)
    }
  }
}

/// A flash-card deck, the tutorial's example collection.
struct FlashCardDeck: Writeable {
    var name: String
    var cards: [String]
}

/// A screen that listens for deletions, as the tutorial's custom delegation does.
final class DeckListener: DataPersistenceDelegate {
    var deleted: [String] = []
    var failures: [String] = []

    func didDeleteItem<T>(_ persistenceHelper: DataPersistence<T>, item: T) {
        deleted.append((item as? FlashCardDeck)?.name ?? "?")
    }

    func didFail<T>(_ persistence: DataPersistence<T>, operation: String, error: DataPersistenceError) {
        failures.append(operation)
    }
}

@Suite struct OriginalExamplesTests {
    let spanish = FlashCardDeck(name: "Spanish", cards: ["hola", "gracias"])
    let french = FlashCardDeck(name: "French", cards: ["bonjour"])
    let german = FlashCardDeck(name: "German", cards: ["danke"])

    /// Every call the tutorial makes, in its shapes: which throw, which return `Bool`.
    func tutorialCalls(_ persistence: DataPersistence<FlashCardDeck>, listener: DeckListener) throws -> [FlashCardDeck] {
        persistence.delegate = listener
        try persistence.createItem(spanish)
        try persistence.createItem(french)
        var decks = try persistence.loadItems()
        persistence.update(decks[1], with: german)                     // @discardableResult
        if persistence.update(FlashCardDeck(name: "Spanish", cards: ["hola"]), at: 0) {
            decks = try persistence.loadItems()
        }
        persistence.synchronize(decks.reversed())                     // re-ordering
        let saved = persistence.hasItemBeenSaved(german)
        #expect(saved)
        try persistence.deleteItem(at: 0)
        return try persistence.loadItems()
    }

    @Test func theTutorialsCallsWorkFromSynchronousCode() throws {
        let temp = try TemporaryFolder(prefix: "tutorial-sync")
        let persistence = DataPersistence<FlashCardDeck>(filename: "decks.plist", directory: .folder(temp.url))
        let listener = DeckListener()
        let left = try tutorialCalls(persistence, listener: listener)
        #expect(left == [FlashCardDeck(name: "Spanish", cards: ["hola"])])
        #expect(listener.deleted == ["German"] && listener.failures.isEmpty)
        // The file is what the tutorial writes: PropertyListEncoder's array, in the folder given.
        let bytes = try Data(contentsOf: temp.file("decks.plist"))
        #expect(bytes == (try PropertyListEncoder().encode(left)))
        // A new instance reads it back; removeAll() empties it.
        let again = DataPersistence<FlashCardDeck>(filename: "decks.plist", directory: .folder(temp.url))
        #expect(try again.loadItems() == left)
        again.removeAll()
        #expect(try persistence.loadItems() == [])
    }

    /// The same calls inside an `async` function compile unchanged: no `async` overload of the same
    /// name takes them over. The async forms are under `persistence.async`.
    @Test func theTutorialsCallsWorkFromAsyncCode() async throws {
        let temp = try TemporaryFolder(prefix: "tutorial-async")
        let persistence = DataPersistence<FlashCardDeck>(filename: "decks.plist", directory: .folder(temp.url))
        let listener = DeckListener()
        try persistence.createItem(spanish)
        try persistence.createItem(french)
        let decks = try persistence.loadItems()
        persistence.update(decks[1], with: german)
        _ = persistence.update(spanish, at: 0)
        persistence.synchronize(try persistence.loadItems())
        #expect(persistence.hasItemBeenSaved(german))
        persistence.delegate = listener
        try persistence.deleteItem(at: 1)
        try await persistence.async.createItem(french)
        #expect(try persistence.loadItems().map(\.name) == ["Spanish", "French"])
        persistence.removeAll()
        #expect(try persistence.loadItems() == [])
        #expect(listener.deleted == ["German"])
    }

    @Test func itemsSurviveANewProcess() async throws {
        let temp = try TemporaryFolder(prefix: "tutorial-process")
        let file = temp.file("items.plist")
        let persistence = DataPersistence<CollectionProbeItem>(filename: "items.plist", directory: .folder(temp.url))
        try persistence.createItem(CollectionProbeItem(process: 1, sequence: 1))
        let child = try ChildProcess.start(try ChildProcess.builtProgram("collection-probe"), ["create-one", file.path, "2", "1"])
        let end = try await child.waitForExit(deadline: .now + .seconds(60))
        #expect(end == .exited(0), "\(child.error("\(end)"))")
        #expect(try persistence.loadItems().map(\.id) == ["1-1", "2-1"])
        #expect(persistence.hasItemBeenSaved(CollectionProbeItem(process: 2, sequence: 1)))
    }

    @Test func equalValuesAreNotRewritten() throws {
        let temp = try TemporaryFolder(prefix: "tutorial-equal")
        let persistence = DataPersistence<FlashCardDeck>(filename: "decks.plist", directory: .folder(temp.url))
        try persistence.createItem(spanish)
        let writes = persistence.writeCount
        #expect(persistence.update(spanish, with: spanish))
        #expect(persistence.update(spanish, at: 0))
        persistence.synchronize(try persistence.loadItems())
        #expect(persistence.writeCount == writes, "an equal value rewrote the file")
    }

    /// A failed non-throwing call returns `false` and tells `onError`, the delegate and `changes()`.
    @Test func aFailureIsNeverSilent() async throws {
        let temp = try TemporaryFolder(prefix: "tutorial-failure")
        let persistence = DataPersistence<FlashCardDeck>(filename: "decks.plist", directory: .folder(temp.url))
        try persistence.createItem(spanish)
        let listener = DeckListener()
        persistence.delegate = listener
        var handled: [DataPersistenceError] = []
        persistence.onError = { handled.append($0) }
        var changes = persistence.changes().makeAsyncIterator()

        #expect(!persistence.update(french, at: 5), "an index out of range")
        try Data("not a property list".utf8).write(to: temp.file("decks.plist"))
        #expect(!persistence.update(french, with: german))
        #expect(!persistence.hasItemBeenSaved(spanish))
        persistence.synchronize([french])
        persistence.removeAll()
        #expect(try Data(contentsOf: temp.file("decks.plist")) == Data("not a property list".utf8), "a damaged file was overwritten")

        #expect(handled.count == 5)
        if case .indexOutOfRange(5, 1)? = handled.first {} else { Issue.record("first failure: \(String(describing: handled.first))") }
        #expect(handled.dropFirst().allSatisfy { if case .propertyListDecodingError = $0 { return true } else { return false } })
        #expect(listener.failures == ["update(_:at:)", "update(_:with:)", "hasItemBeenSaved(_:)", "synchronize(_:)", "removeAll()"])
        var operations: [String] = []
        while operations.count < 5, let change = await changes.next() {
            if case .failed(_, let operation) = change { operations.append(operation) }
        }
        #expect(operations == listener.failures)
    }

    /// With no `onError`, a failure is one line on standard error (in a child: the test runner's own
    /// standard error is not this test's to read).
    @Test func withoutAHandlerAFailureIsOneLineOnStandardError() async throws {
        let temp = try TemporaryFolder(prefix: "tutorial-stderr")
        let file = temp.file("items.plist")
        try Data("damaged".utf8).write(to: file)
        let child = try ChildProcess.start(try ChildProcess.builtProgram("collection-probe"), ["tutorial-update", file.path])
        let end = try await child.waitForExit(deadline: .now + .seconds(60))
        #expect(end == .exited(0), "\(child.error("\(end)"))")
        #expect(child.outputLines == ["returned false"])
        let lines = child.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(child.standardError)")
        #expect(lines.first?.hasPrefix("DataPersistence<CollectionProbeItem>.update(_:at:) failed: ") == true, "\(child.standardError)")
        #expect(lines.first?.contains(file.path) == true)
    }
}
