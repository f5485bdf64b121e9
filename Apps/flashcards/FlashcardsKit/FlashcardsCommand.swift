import ArgumentParser
import CollectionStore
import CommandSupport
import Foundation

/// `flashcards`: decks of cards from the command line.
///
/// ```swift
/// let status = await FlashcardsCommand.run(arguments: ["add-deck", "Spanish", "--folder", path], streams: .standard)
/// ```
///
/// `Command/main.swift` runs it as the `flashcards` program; the tests run it in-process.
public struct FlashcardsCommand: ParsableCommand {
    /// The command's name, help and subcommands: `add-deck`, `add-card`, `list`, `quiz`.
    public static let configuration = CommandConfiguration(
        commandName: "flashcards",
        abstract: "Keeps decks of flashcards in decks.plist and cards.plist (CollectionStore's DataPersistence).",
        discussion: """
            Both files are binary property-list arrays, exactly what PropertyListEncoder writes, so \
            they open on a Mac too. Several flashcards processes can add cards at once without losing any.

            Exit status: 0 on success, 64 for bad arguments (an unknown deck, a duplicate name), 1 when a \
            file could not be read or written (a damaged file is reported and left as it is).
            """,
        subcommands: [AddDeck.self, AddCard.self, List.self, Quiz.self])

    /// The command with no arguments parsed; `FlashcardsCommand.run(arguments:streams:)` parses and runs it.
    public init() {}
}

extension FlashcardsCommand {
    /// `flashcards add-deck NAME`.
    struct AddDeck: StreamingCommand {
        static let configuration = CommandConfiguration(commandName: "add-deck", abstract: "Add an empty deck.")

        @OptionGroup var library: LibraryOptions
        @Argument(help: "The deck's name, unique.") var name: String

        func run(_ streams: CommandStreams) async throws {
            let name = name.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw ValidationError("a deck needs a name") }
            let decks = library.open().decks
            // Check and add under one lock, so two processes cannot both add the same name.
            let added = try reportingStoreErrors {
                try decks.transaction { items -> Bool in
                    guard !items.contains(where: { $0.name == name }) else { return false }
                    items.append(Deck(id: UUID(), name: name, created: Date()))
                    return true
                }
            }
            guard added else { throw ValidationError("a deck named \"\(name)\" already exists") }
            streams.print("added deck \"\(name)\"")
        }
    }

    /// `flashcards add-card DECK FRONT BACK`.
    struct AddCard: StreamingCommand {
        static let configuration = CommandConfiguration(commandName: "add-card", abstract: "Add a card to a deck.")

        @OptionGroup var library: LibraryOptions
        @Argument(help: "The deck's name.") var deck: String
        @Argument(help: "The prompt.") var front: String
        @Argument(help: "The answer.") var back: String

        func run(_ streams: CommandStreams) async throws {
            let library = library.open()
            try reportingStoreErrors {
                _ = try library.deck(named: deck)
                try library.cards.createItem(Card(id: UUID(), deck: deck, front: front, back: back,
                                                  created: Date(), reviews: 0, lastCorrect: nil))
                let count = try library.cards.loadItems().filter { $0.deck == deck }.count
                streams.print("added card \"\(front)\" to \"\(deck)\" (\(count) card\(count == 1 ? "" : "s"))")
            }
        }
    }

    /// `flashcards list [DECK]`.
    struct List: StreamingCommand {
        static let configuration = CommandConfiguration(abstract: "List the decks, or the cards of one deck.")

        @OptionGroup var library: LibraryOptions
        @Argument(help: "Show this deck's cards.") var deck: String?

        func run(_ streams: CommandStreams) async throws {
            let library = library.open()
            try reportingStoreErrors {
                let cards = try library.cards.loadItems()
                guard let deck else {
                    let decks = try library.decks.loadItems()
                    if decks.isEmpty { streams.print("no decks") }
                    for deck in decks {
                        let count = cards.filter { $0.deck == deck.name }.count
                        streams.print("\(deck.name): \(count) card\(count == 1 ? "" : "s")")
                    }
                    return
                }
                _ = try library.deck(named: deck)
                let inDeck = cards.filter { $0.deck == deck }
                if inDeck.isEmpty { streams.print("no cards in \"\(deck)\"") }
                for card in inDeck {
                    let last = card.lastCorrect.map { $0 ? "last right" : "last wrong" } ?? "new"
                    streams.print("\(card.front) → \(card.back)  (\(card.reviews) review\(card.reviews == 1 ? "" : "s"), \(last))")
                }
            }
        }
    }

    /// `flashcards quiz DECK`: asks each card's front, reads answers from standard input.
    struct Quiz: StreamingCommand {
        static let configuration = CommandConfiguration(
            abstract: "Quiz yourself on a deck: answer each prompt on its own line.",
            discussion: "Cards answered wrong last time come first, then new ones, then the rest. "
                + "The results are saved by card id, so cards added meanwhile by another process are kept.")

        @OptionGroup var library: LibraryOptions
        @Argument(help: "The deck's name.") var deck: String
        @Option(help: "Ask at most this many cards.") var count: Int?

        func run(_ streams: CommandStreams) async throws {
            let library = library.open()
            try reportingStoreErrors {
                _ = try library.deck(named: deck)
                let rank: (Card) -> Int = { $0.lastCorrect == false ? 0 : $0.lastCorrect == nil ? 1 : 2 }
                var cards = try library.cards.loadItems().filter { $0.deck == deck }
                cards = cards.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
                if let count { cards = Array(cards.prefix(max(0, count))) }
                guard !cards.isEmpty else {
                    streams.print("no cards in \"\(deck)\"")
                    return
                }
                var right = 0
                var asked = 0
                for var card in cards {
                    streams.print("\(card.front)? ", terminator: "")
                    guard let answer = streams.readLine() else {
                        streams.print()
                        break
                    }
                    asked += 1
                    card.reviews += 1
                    card.lastCorrect = card.accepts(answer)
                    if card.lastCorrect == true {
                        right += 1
                        streams.print("right")
                    } else {
                        streams.print("wrong: \(card.back)")
                    }
                    try library.cards.updateItem(card)
                }
                streams.print("\(right) of \(asked) right")
            }
        }
    }
}
