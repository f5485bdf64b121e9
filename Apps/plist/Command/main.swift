print("plist: not yet")
