import FileStorageKit
import Foundation
import PlistCodec

extension PersistenceContext {
    /// Listens to the document's change deliveries (FileStorageKit's change thread, fed by inotify):
    /// when another writer changed a property's value in the file, Observation hears that it will
    /// change (`withObservationTracking`'s `onChange` runs) without waiting for anyone to read the
    /// model or for a task of the cooperative pool. The value itself is assigned on the next get, on
    /// the reader's thread, so the model's storage is never touched from the change thread.
    func watch(_ model: Model, _ setup: Setup) {
        let target = WeakModel(model)
        let announce = UncheckedSendable { [weak self] in
            guard let self, let model = target.model else { return }
            self.announceExternalChanges(model, setup)
        }
        let subscription = setup.document.onChange { announce.value() }
        state.withLock { $0.subscription = subscription }
    }

    private func announceExternalChanges(_ model: Model, _ setup: Setup) {
        guard let file = try? setup.document.read() else { return }
        let (known, dirty) = state.withLock { ($0.document, Set($0.dirty)) }
        for field in setup.fields where !dirty.contains(field.key) && field.value(in: file) != field.value(in: known) {
            field.announce(model)
        }
    }
}

/// The model, held weakly by its change listener (the model owns the context that owns the listener).
// @unchecked Sendable: `model` is set in `init` and never written again (a weak load is atomic); the listener only announces changes through it
private final class WeakModel<Model: AnyObject>: @unchecked Sendable {
    weak var model: Model?
    init(_ model: Model) { self.model = model }
}

