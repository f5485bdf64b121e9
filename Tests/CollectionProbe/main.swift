print("collection-probe: not yet")
