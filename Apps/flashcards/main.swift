// flashcards: decks of cards kept in two property-list arrays by CollectionStore. See README.md.
FlashcardsCommand.main()
