import Observation

/// What Observation sees of a computed node: the subject its reads and changes are reported on.
///
/// A separate object, so a change can notify Observation after the graph's lock is released without
/// keeping the node itself (the notification list retains the relay, which holds nothing of the
/// node's, so a node released meanwhile goes away as usual).
@usableFromInline
final class ObservationRelay: Observable, Sendable {
    @usableFromInline let registrar = ObservationRegistrar()
    /// Made once: a key path literal in the hot path would be instantiated on every read.
    @usableFromInline let keyPath: KeyPath<ObservationRelay, Int> & Sendable = \ObservationRelay.value

    /// The member Observation is told about; it holds nothing.
    @usableFromInline var value: Int { 0 }

    @usableFromInline init() {}

    /// Reports a read of the node to Observation.
    @inlinable
    func access() {
        registrar.access(self, keyPath: keyPath)
    }
}

extension ObservationRelay: GraphNotifying {
    @usableFromInline
    func notifyObservers() {
        registrar.willSet(self, keyPath: keyPath)
        registrar.didSet(self, keyPath: keyPath)
    }
}
