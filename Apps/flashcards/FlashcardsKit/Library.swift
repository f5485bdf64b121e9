import ArgumentParser
import CollectionStore
import CommandSupport
import Foundation

/// `--folder`, shared by every subcommand: where `decks.plist` and `cards.plist` live.
struct LibraryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Keep the decks and cards in this folder (created on the first write).",
                                            discussion: "Default: the documents folder of the program "
                                                + "(~/Documents/flashcards on Linux; $PERSISTENCE_TOOLKIT_ROOT/Documents when that is set).",
                                            valueName: "path"),
            completion: .directory)
    var folder: String?

    /// The two files, in `--folder` or the default documents folder.
    func open() -> Library {
        let directory: PersistenceDirectory = folder.map {
            .folder(URL(fileURLWithPath: $0, isDirectory: true).standardizedFileURL)
        } ?? .documents
        return Library(decks: DataPersistence(filename: "decks.plist", directory: directory, appName: "flashcards"),
                       cards: DataPersistence(filename: "cards.plist", directory: directory, appName: "flashcards"))
    }
}

/// The decks and cards files.
struct Library {
    let decks: DataPersistence<Deck>
    let cards: DataPersistence<Card>

    /// The deck called `name`, or a validation error listing the decks there are.
    func deck(named name: String) throws -> Deck {
        let decks = try decks.loadItems()
        guard let deck = decks.first(where: { $0.name == name }) else {
            let known = decks.isEmpty ? "there are no decks yet (add one with `flashcards add-deck NAME`)"
                : "decks: " + decks.map(\.name).joined(separator: ", ")
            throw ValidationError("no deck named \"\(name)\"; \(known)")
        }
        return deck
    }
}

/// Runs `body`, turning a `DataPersistenceError` into `flashcards: <error>` on standard error and exit status 1.
func reportingStoreErrors<R>(_ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let error as DataPersistenceError {
        throw CommandFailure("\(error)")
    }
}
