import FileStorageKit
import Synchronization

/// The hot path of every generated getter: "is memory still what the file holds?", answered with
/// two atomic loads and the monitor's token (one more atomic load with inotify).
///
/// Not generic, and inlinable into the getters, so a get pays no generic dispatch and no reference
/// counting: the monitor is held strongly by the context and read here unretained.
@usableFromInline
final class FreshnessGate: Sendable {
    /// The context's monitor, unretained; `nil` until the context is ready (after its first load began).
    @usableFromInline let monitor = Atomic<Unmanaged<FileChangeMonitor>?>(nil)
    /// The monitor token the in-memory values correspond to.
    @usableFromInline let seenToken = Atomic<UInt64>(0)

    @usableFromInline init() {}

    /// Whether the context is ready and nothing changed the file since memory was last brought in step.
    @inlinable var isFresh: Bool {
        guard let monitor = monitor.load(ordering: .acquiring) else { return false }
        return monitor._withUnsafeGuaranteedRef { $0.changeToken } == seenToken.load(ordering: .relaxed)
    }

    /// Whether the context has resolved its file.
    var isReady: Bool { monitor.load(ordering: .acquiring) != nil }

    /// Publishes the monitor (which the caller keeps alive for the gate's lifetime).
    func open(with monitor: FileChangeMonitor) {
        self.monitor.store(Unmanaged.passUnretained(monitor), ordering: .releasing)
    }

    /// Records that memory matches the file as of `token`.
    func markSeen(_ token: UInt64) {
        seenToken.store(token, ordering: .relaxed)
    }
}
