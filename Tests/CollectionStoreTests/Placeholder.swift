// CollectionStoreTests: placeholder
