print("plist-tool-bench: not yet")
