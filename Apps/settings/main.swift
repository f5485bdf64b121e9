print("settings: not yet")
