import Synchronization

/// The counter behind a monitor's `changeToken`, for a hot path that keeps it itself.
///
/// ModelPersistence checks the token on every property get. Going through the monitor costs two
/// dependent loads more than going to its counter directly (monitor, then counter), and dependent
/// loads are most of a get's overhead over an `@Observable` get. A source is one pointer to the
/// counter; `unsafeBits` lets a caller publish it in an `Atomic<UInt>`.
///
/// A source is valid only while its monitor lives: keep the monitor. `package`: only a sibling
/// module (ModelPersistence) keeps a hot path of this kind, whose inlinable get (inlined into the
/// models' modules) makes it `@usableFromInline`; `init(unsafeBits:)` is not for users.
///
/// ```swift
/// let monitor = FileChangeMonitor(url: url)
/// let source = ChangeTokenSource(monitor)          // nil when the monitor polls
/// // On the hot path: one load while the watch holds; the monitor, which polls, once it is lost.
/// let token = source?.token ?? monitor.changeToken
/// ```
@frozen @usableFromInline
package struct ChangeTokenSource: Sendable {
    @usableFromInline let counter: Unmanaged<ChangeCounter>

    /// The source behind `monitor`'s token, or `nil` when the monitor polls (no inotify watch).
    @usableFromInline
    package init?(_ monitor: FileChangeMonitor) {
        guard let counter = monitor._counter else { return nil }
        self.counter = counter
    }

    /// Rebuilds a source from `unsafeBits` (which must be nonzero and come from a live source).
    @inlinable
    package init(unsafeBits: UInt) {
        counter = Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: unsafeBits).unsafelyUnwrapped)
    }

    /// The source as one nonzero word, for an `Atomic<UInt>`.
    @usableFromInline
    package var unsafeBits: UInt { UInt(bitPattern: counter.toOpaque()) }

    /// The monitor's `changeToken`; `nil` once the kernel dropped the watch, when only the monitor,
    /// which then polls the file, can tell.
    @inlinable
    package var token: UInt64? {
        counter._withUnsafeGuaranteedRef { counter in
            let events = counter.value.load(ordering: .acquiring)
            return counter.lost.load(ordering: .acquiring) ? nil : events
        }
    }
}
