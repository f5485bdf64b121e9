// flashcards: decks of cards kept in two property-list arrays by CollectionStore. See ../README.md.
import FlashcardsKit

await FlashcardsCommand.runAsProgram()
