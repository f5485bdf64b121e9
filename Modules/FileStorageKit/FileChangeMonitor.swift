import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells a cache whether its file may have changed, without a system call per question.
///
/// **Mechanism.** On Linux, one process-wide inotify descriptor watches the folders of monitored files
/// (`IN_CLOSE_WRITE`, `IN_MOVED_TO`, `IN_CREATE`, `IN_DELETE`, `IN_MOVED_FROM`: an atomic write is a
/// rename into the folder) and a dedicated thread (not one of Swift's cooperative pool) bumps the
/// file's generation counter when an event names it. `changeToken` is then one atomic load.
///
/// **Fallback.** Where inotify is not available (other platforms, or the per-user watch limit is
/// reached), the monitor compares the file's identity — device, inode, size, modification and change
/// times in nanoseconds, all together — at most once every `fallbackInterval` (50 ms). Neither the
/// modification time alone (coarse on some file systems) nor the inode alone (reused after a
/// delete) is trusted.
///
/// **Delay.** Another process's change is seen within 100 ms: with inotify as soon as the event is
/// read (typically well under a millisecond), with the fallback within 50 ms of the next read.
/// A store re-reads the file under the lock before every write, so a write always starts from the
/// newest file whatever the monitor says.
public final class FileChangeMonitor: Sendable {
    /// How often the fallback checks the file's identity.
    public static let fallbackInterval: Duration = .milliseconds(50)

    /// The file being watched.
    public let url: URL
    @usableFromInline let _counter: Unmanaged<ChangeCounter>?
    private var counter: ChangeCounter? { _counter?.takeUnretainedValue() }
    /// Keeps the counter alive for as long as the monitor (the unmanaged reference does not).
    private let counterOwner: ChangeCounter?
    private let fallback = Mutex<(checkedAt: ContinuousClock.Instant, signature: FileSignature?, token: UInt64)>(
        (ContinuousClock.now, nil, 0))

    /// Starts watching `url` (its folder must exist for inotify to be used; otherwise the fallback is).
    public init(url: URL) {
        self.url = url.standardizedFileURL
        // A write through a same-folder symlink renames onto the link's target, so watch that name.
        let watched = (try? DurableFile.resolveTarget(self.url)) ?? self.url
        counterOwner = InotifyHub.shared?.watch(watched)
        _counter = counterOwner.map { Unmanaged.passUnretained($0) }
        if counterOwner == nil {
            fallback.withLock { $0.signature = FileSignature(path: self.url.path) }
        }
    }

    deinit {
        if let counter { InotifyHub.shared?.unwatch(url, counter) }
    }

    /// Whether changes are reported by inotify (`true`) or by the polling fallback.
    public var usesInotify: Bool { counter != nil }

    /// A value that changes whenever the file may have changed. Compare it with the one you saw last.
    ///
    /// Inlinable, so a store in another module checks it with one atomic load and no call: it sits on
    /// the hot path of every property read.
    @inlinable
    public var changeToken: UInt64 {
        guard let counter = _counter else { return polledToken() }
        return counter._withUnsafeGuaranteedRef { counter in
            let events = counter.value.load(ordering: .acquiring)
            // The kernel drops a watch when its folder is removed; from then on, poll instead.
            guard counter.lost.load(ordering: .acquiring) else { return events }
            return events &+ polledToken()
        }
    }

    @usableFromInline
    func polledToken() -> UInt64 {
        fallback.withLock { state in
            let now = ContinuousClock.now
            guard now - state.checkedAt >= Self.fallbackInterval else { return state.token }
            state.checkedAt = now
            let signature = FileSignature(path: url.path)
            if signature != state.signature {
                state.signature = signature
                state.token &+= 1
            }
            return state.token
        }
    }
}

/// What identifies one version of a file: all of these together.
struct FileSignature: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64
    var changed: Int64

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        #if canImport(Darwin)
        modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        changed = Int64(info.st_ctimespec.tv_sec) * 1_000_000_000 + Int64(info.st_ctimespec.tv_nsec)
        #else
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        #endif
    }
}

@usableFromInline
final class ChangeCounter: Sendable {
    @usableFromInline let value = Atomic<UInt64>(0)
    /// Set when the kernel dropped the folder's watch (the folder was removed or unmounted).
    @usableFromInline let lost = Atomic<Bool>(false)
    init() {}
    func bump() { value.add(1, ordering: .releasing) }
}
