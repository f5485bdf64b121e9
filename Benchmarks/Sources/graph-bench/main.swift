print("graph-bench: not yet")
