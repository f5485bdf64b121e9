import FileStorageKit
import Synchronization

/// The hot path of every generated getter: "is memory still what the file holds?"
///
/// Not generic, inlinable into the getters, and stored inline in the context, so a get pays no
/// generic dispatch, no reference counting and as few dependent loads as possible: the model's
/// context, the counter behind the monitor's token (a `ChangeTokenSource`), the token. Monitors
/// without inotify, and watches the kernel dropped, take the monitor's polling path instead.
@usableFromInline
struct FreshnessGate: ~Copyable, Sendable {
    /// The context's monitor, unretained; `nil` until the context is ready (after its first load began).
    @usableFromInline let monitor = Atomic<Unmanaged<FileChangeMonitor>?>(nil)
    /// The monitor's `ChangeTokenSource` as bits, or 0 when it polls or the context is not ready.
    @usableFromInline let sourceBits = Atomic<UInt>(0)
    /// The monitor token the in-memory values correspond to.
    @usableFromInline let seenToken = Atomic<UInt64>(0)

    @usableFromInline init() {}

    /// Whether the context is ready and nothing changed the file since memory was last brought in step.
    @inlinable var isFresh: Bool {
        let bits = sourceBits.load(ordering: .acquiring)
        if bits != 0, let token = ChangeTokenSource(unsafeBits: bits).token {
            return token == seenToken.load(ordering: .relaxed)
        }
        return isFreshByMonitor
    }

    /// `isFresh` through the monitor: before the context is ready, without inotify, or after the
    /// kernel dropped the watch.
    @usableFromInline var isFreshByMonitor: Bool {
        guard let monitor = monitor.load(ordering: .acquiring) else { return false }
        return monitor._withUnsafeGuaranteedRef { $0.changeToken } == seenToken.load(ordering: .relaxed)
    }

    /// Whether the context has resolved its file.
    var isReady: Bool { monitor.load(ordering: .acquiring) != nil }

    /// Publishes the monitor (which the caller keeps alive for the gate's lifetime). Call after the
    /// first `markSeen`: a reader that finds the source finds that token too.
    func open(with monitor: FileChangeMonitor) {
        if let source = ChangeTokenSource(monitor) { sourceBits.store(source.unsafeBits, ordering: .releasing) }
        self.monitor.store(Unmanaged.passUnretained(monitor), ordering: .releasing)
    }

    /// Records that memory matches the file as of `token`.
    func markSeen(_ token: UInt64) {
        seenToken.store(token, ordering: .relaxed)
    }
}
