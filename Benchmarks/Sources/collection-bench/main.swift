print("collection-bench: not yet")
