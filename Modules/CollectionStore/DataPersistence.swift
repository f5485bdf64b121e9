// CollectionStore: DataPersistence<T> (issue 5). Placeholder until the module lands.
