print("flashcards: not yet")
