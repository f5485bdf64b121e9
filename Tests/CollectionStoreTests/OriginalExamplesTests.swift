import CollectionStore
import FileStorageKit
import Foundation
import Testing
import TestSupport

// The Documents-directory tutorial (../shared/originals/004_e931dc1d7f622b1b.txt), as a user of this
// package writes it. The tutorial's `DataPersistence` class is this module's; what a user pastes is
// its calls, its `Writeable` items, a delegate with its `didDeleteItem`, and its `Directory` and
// `FileManager.getPath` helpers, copied below unchanged.
//
// One platform change, in the tests that run in this process: the stores are created with
// `directory: .folder(...)`. The tutorial's `DataPersistence(filename:)` puts the file in the app's
// Documents folder, which on Linux is `~/Documents/<app>` (`AppDirectories`, see
// Modules/CollectionStore/CollectionStore.docc/CollectionStore.md); tests take their folder from their own configuration so parallel tests
// never share a file. `theTutorialsFileIsInDocumentsAndSurvivesNewProcesses` runs the tutorial's
// `DataPersistence(filename:)` as written, in child processes with their own `HOME`.

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

/// A flash-card deck, the tutorial's example collection ("an array of flash card decks").
struct FlashCardDeck: Writeable {
    var name: String
    var cards: [String]
}

/// A screen that listens for deletions, with exactly the tutorial's delegate method (step 3).
final class DeckListener: DataPersistenceDelegate {
    var deleted: [String] = []

    func didDeleteItem<T>(_ persistenceHelper: DataPersistence<T>, item: T) {
        deleted.append((item as? FlashCardDeck)?.name ?? "?")
    }
}

/// A delegate that also hears the failures of the non-throwing calls.
final class FailureListener: DataPersistenceDelegate {
    var failures: [String] = []

    func didFail<T>(_ persistence: DataPersistence<T>, operation: String, error: DataPersistenceError) {
        failures.append(operation)
    }
}

@Suite struct OriginalExamplesTests {
    static let spanish = FlashCardDeck(name: "Spanish", cards: ["hola", "gracias"])
    static let french = FlashCardDeck(name: "French", cards: ["bonjour"])
    static let german = FlashCardDeck(name: "German", cards: ["danke"])
    /// What `tutorialCalls` leaves in the file.
    static let left = [FlashCardDeck(name: "Spanish", cards: ["hola"])]

    /// Every call the tutorial's class offers, in its shapes: `createItem`, `loadItems` and
    /// `deleteItem(at:)` throw; the two `update`s return a discardable `Bool`; `hasItemBeenSaved`
    /// returns `Bool`; `synchronize` and `removeAll` neither throw nor return.
    func tutorialCalls(_ persistence: DataPersistence<FlashCardDeck>, listener: DeckListener) throws -> [FlashCardDeck] {
        persistence.delegate = listener
        try persistence.createItem(Self.spanish)
        try persistence.createItem(Self.french)
        var decks = try persistence.loadItems()
        persistence.update(decks[1], with: Self.german)
        if persistence.update(FlashCardDeck(name: "Spanish", cards: ["hola"]), at: 0) {
            decks = try persistence.loadItems()
        }
        persistence.synchronize(decks.reversed())                     // re-ordering
        let saved = persistence.hasItemBeenSaved(Self.german)
        #expect(saved)
        try persistence.deleteItem(at: 0)
        return try persistence.loadItems()
    }

    /// `tutorialCalls`, word for word, inside an `async` function: before the async forms moved to
    /// `persistence.async`, each `try persistence.createItem(x)` here failed to compile ("call is
    /// 'async' but is not marked with 'await'"), and the `update`s, `synchronize` and `removeAll`
    /// were the throwing async overloads.
    func tutorialCallsInAsyncCode(_ persistence: DataPersistence<FlashCardDeck>, listener: DeckListener) async throws -> [FlashCardDeck] {
        persistence.delegate = listener
        try persistence.createItem(Self.spanish)
        try persistence.createItem(Self.french)
        var decks = try persistence.loadItems()
        persistence.update(decks[1], with: Self.german)
        if persistence.update(FlashCardDeck(name: "Spanish", cards: ["hola"]), at: 0) {
            decks = try persistence.loadItems()
        }
        persistence.synchronize(decks.reversed())                     // re-ordering
        let saved = persistence.hasItemBeenSaved(Self.german)
        #expect(saved)
        try persistence.deleteItem(at: 0)
        return try persistence.loadItems()
    }

    /// What the text promises after the calls: the file is `PropertyListEncoder`'s array, a new
    /// instance reads it back, and `removeAll()` empties it.
    func checkAfterTheCalls(_ left: [FlashCardDeck], listener: DeckListener, folder: URL) throws {
        #expect(left == Self.left)
        #expect(listener.deleted == ["German"])
        let bytes = try Data(contentsOf: folder.appendingPathComponent("decks.plist"))
        #expect(bytes == (try PropertyListEncoder().encode(left)))
        let again = DataPersistence<FlashCardDeck>(filename: "decks.plist", directory: .folder(folder))
        #expect(try again.loadItems() == left)
        again.removeAll()
        #expect(try Data(contentsOf: folder.appendingPathComponent("decks.plist")) == (try PropertyListEncoder().encode([FlashCardDeck]())))
    }

    @Test func theTutorialsCallsWorkFromSynchronousCode() throws {
        let temp = try TemporaryFolder(prefix: "tutorial-sync")
        let persistence = DataPersistence<FlashCardDeck>(filename: "decks.plist", directory: .folder(temp.url))
        let listener = DeckListener()
        let left = try tutorialCalls(persistence, listener: listener)
        try checkAfterTheCalls(left, listener: listener, folder: temp.url)
    }

    @Test func theTutorialsCallsWorkFromAsyncCode() async throws {
        let temp = try TemporaryFolder(prefix: "tutorial-async")
        let persistence = DataPersistence<FlashCardDeck>(filename: "decks.plist", directory: .folder(temp.url))
        let listener = DeckListener()
        let left = try await tutorialCallsInAsyncCode(persistence, listener: listener)
        try checkAfterTheCalls(left, listener: listener, folder: temp.url)
        // The async forms are there for code that wants them, under names of their own.
        try await persistence.async.createItem(Self.french)
        #expect(try persistence.loadItems() == [Self.french])
    }

    /// Steps 1 and 2 of the tutorial, and where `DataPersistence(filename:)` puts the file instead.
    @Test func theTutorialsPathSnippets() throws {
        let documentsDirectory = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0] // or .first!
        // Step 2 as published, `let fullPath = documentsDirectory.append(path: "fileName.plist")`, does
        // not compile on any platform (`append(path:)` mutates a `var` and returns nothing); this is the
        // alternative its own comment gives.
        let fullPath = documentsDirectory.appendingPathComponent("fileName").appendingPathExtension("plist")
        #expect(fullPath.lastPathComponent == "fileName.plist")
        #expect(FileManager.getPath(with: "fileName.plist", for: .documentsDirectory).path == fullPath.path)

        // Creating a store touches nothing on disk, so the default folder can be looked at here.
        let persistence = DataPersistence<FlashCardDeck>(filename: "fileName.plist")
        let documents = AppDirectories(appName: ProcessInfo.processInfo.processName).documents
        #expect(persistence.url == documents.appendingPathComponent("fileName.plist"))
    }

    /// The tutorial's `DataPersistence(filename:)` as written, in two new processes whose `HOME` is the
    /// test's folder (set for the children only): the file is `~/Documents/<app>/fileName.plist` on
    /// Linux, holds `PropertyListEncoder`'s array, and what one process saves the next one loads.
    @Test func theTutorialsFileIsInDocumentsAndSurvivesNewProcesses() async throws {
        let temp = try TemporaryFolder(prefix: "tutorial-documents")
        let home = temp.folder("home")
        var environment = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("XDG_") && $0.key != AppDirectories.rootEnvironmentVariable
        }
        environment["HOME"] = home.path
        let file = home.appendingPathComponent("Documents/collection-probe/fileName.plist")
        let probe = try ChildProcess.builtProgram("collection-probe")

        let first = try ChildProcess.start(probe, ["tutorial-decks", "Spanish", "French"], environment: environment)
        var end = try await first.waitForExit(deadline: .now + .seconds(180))
        #expect(end == .exited(0), "\(first.error("\(end)"))")
        #expect(first.outputLines == ["file \(file.path)", "loaded "])
        let created = [FlashCardDeck(name: "Spanish", cards: []), FlashCardDeck(name: "French", cards: [])]
        #expect(try Data(contentsOf: file) == (try PropertyListEncoder().encode(created)))

        // This process, a new instance on the same file: it reads them, and its change is saved.
        let persistence = DataPersistence<FlashCardDeck>(filename: "fileName.plist", directory: .folder(file.deletingLastPathComponent()))
        #expect(try persistence.loadItems() == created)
        #expect(persistence.update(created[1], with: Self.german))

        let second = try ChildProcess.start(probe, ["tutorial-decks"], environment: environment)
        end = try await second.waitForExit(deadline: .now + .seconds(180))
        #expect(end == .exited(0), "\(second.error("\(end)"))")
        #expect(second.outputLines == ["file \(file.path)", "loaded Spanish,German"])
    }

    @Test func equalValuesAreNotRewritten() throws {
        let temp = try TemporaryFolder(prefix: "tutorial-equal")
        let persistence = DataPersistence<FlashCardDeck>(filename: "decks.plist", directory: .folder(temp.url))
        try persistence.createItem(Self.spanish)
        let writes = persistence.writeCount
        let before = try identity(temp.file("decks.plist"))
        #expect(persistence.update(Self.spanish, with: Self.spanish))
        #expect(persistence.update(Self.spanish, at: 0))
        persistence.synchronize(try persistence.loadItems())
        #expect(persistence.hasItemBeenSaved(Self.spanish))
        #expect(persistence.writeCount == writes, "an equal value rewrote the file")
        #expect(try identity(temp.file("decks.plist")) == before, "the file was replaced")

        persistence.removeAll()
        let emptied = try identity(temp.file("decks.plist"))
        persistence.removeAll()
        #expect(persistence.writeCount == writes + 1, "emptying an empty file wrote it")
        #expect(try identity(temp.file("decks.plist")) == emptied)
    }

    /// A failed non-throwing call returns `false` (or nothing) and tells `onError`, the delegate and
    /// `changes()`, and never touches a damaged file.
    @Test func aFailureIsNeverSilent() async throws {
        let temp = try TemporaryFolder(prefix: "tutorial-failure")
        let persistence = DataPersistence<FlashCardDeck>(filename: "decks.plist", directory: .folder(temp.url))
        try persistence.createItem(Self.spanish)
        let listener = FailureListener()
        persistence.delegate = listener
        var handled: [DataPersistenceError] = []
        persistence.onError = { handled.append($0) }
        let collector = ChangeCollector(persistence.changes())

        #expect(!persistence.update(Self.french, at: 5), "an index out of range")
        let damaged = Data("not a property list".utf8)
        try damaged.write(to: temp.file("decks.plist"))
        #expect(!persistence.update(Self.spanish, with: Self.german))
        #expect(!persistence.hasItemBeenSaved(Self.spanish))
        persistence.synchronize([Self.french])
        persistence.removeAll()
        #expect(try Data(contentsOf: temp.file("decks.plist")) == damaged, "a damaged file was overwritten")

        let operations = ["update(_:at:)", "update(_:with:)", "hasItemBeenSaved(_:)", "synchronize(_:)", "removeAll()"]
        #expect(handled.count == 5)
        if case .indexOutOfRange(5, 1)? = handled.first {} else { Issue.record("first failure: \(String(describing: handled.first))") }
        #expect(handled.dropFirst().allSatisfy { if case .propertyListDecodingError = $0 { return true } else { return false } })
        #expect(listener.failures == operations)
        let failed = await collector.wait(for: 5).compactMap { change -> String? in
            if case .failed(_, let operation) = change { return operation }
            return nil
        }
        #expect(failed == operations)
    }

    /// With no `onError`, each failure is one line on standard error (in a child: the test runner's
    /// own standard error is not this test's to read).
    @Test func withoutAHandlerEachFailureIsOneLineOnStandardError() async throws {
        let temp = try TemporaryFolder(prefix: "tutorial-stderr")
        let file = temp.file("items.plist")
        let damaged = Data("damaged\nover two lines".utf8)
        try damaged.write(to: file)
        let child = try ChildProcess.start(try ChildProcess.builtProgram("collection-probe"), ["tutorial-failures", file.path])
        let end = try await child.waitForExit(deadline: .now + .seconds(180))
        #expect(end == .exited(0), "\(child.error("\(end)"))")
        #expect(child.outputLines == [
            "update(_:with:) returned false", "update(_:at:) returned false", "hasItemBeenSaved(_:) returned false",
            "synchronize(_:) returned", "removeAll() returned",
        ])
        let lines = child.standardError.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let operations = ["update(_:with:)", "update(_:at:)", "hasItemBeenSaved(_:)", "synchronize(_:)", "removeAll()"]
        #expect(lines.count == operations.count, "\(child.standardError)")
        for (line, operation) in zip(lines, operations) {
            #expect(line.hasPrefix("DataPersistence<CollectionProbeItem>.\(operation) failed: cannot decode the items"), "\(line)")
            #expect(line.contains(file.path), "the line names the file: \(line)")
        }
        #expect(try Data(contentsOf: file) == damaged)
    }

    /// The file's inode and modification time: a rewrite (temporary file and rename) changes both.
    func identity(_ url: URL) throws -> [String] {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return ["\(attributes[.systemFileNumber] ?? "none")", "\(attributes[.modificationDate] ?? "none")"]
    }
}
