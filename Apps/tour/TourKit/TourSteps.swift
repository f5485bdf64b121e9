/// The tour's steps, run in this order. Each module adds one line here and one `<Module>Step.swift`.
enum TourSteps {
    static let all: [any TourStep] = [
        PlistCodecStep(),
        FileStorageKitStep(),
        ModelPersistenceStep(),
        CollectionStoreStep(),
        StateGraphStep(),
        ManagedStorageStep(),
        DocumentStoreStep(),
        DocumentSyncStep(),
        PlistStep(),
    ]
}
