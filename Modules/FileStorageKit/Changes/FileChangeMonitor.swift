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
///
/// ```swift
/// let monitor = FileChangeMonitor(url: url)
/// var seen = monitor.changeToken
/// // ... later, before serving a cached value:
/// if monitor.changeToken != seen {
///     seen = monitor.changeToken
///     cache = try DurableFile.readIfPresent(url)
/// }
/// ```
public final class FileChangeMonitor: Sendable {
    /// How often the fallback checks the file's identity.
    public static let fallbackInterval: Duration = .milliseconds(50)

    /// The file being watched.
    public let url: URL
    @usableFromInline let _counter: Unmanaged<ChangeCounter>?
    private var counter: ChangeCounter? { _counter?.takeUnretainedValue() }
    /// Keeps the counter alive for as long as the monitor (the unmanaged reference does not).
    private let counterOwner: ChangeCounter?
    /// Whether `counterOwner` comes from the inotify hub (and must be unwatched).
    private let fromHub: Bool
    /// Who hears of changes (`addListener`): the inotify counter's list, or the polled monitor's own.
    let listeners: ChangeCounter
    private let fallback = Mutex<(checkedAt: ContinuousClock.Instant, signature: FileSignature?, token: UInt64)>(
        (ContinuousClock.now, nil, 0))

    /// Starts watching `url` (its folder must exist for inotify to be used; otherwise the fallback is).
    public init(url: URL) {
        self.url = url.standardizedFileURL
        // A write through a same-folder symlink renames onto the link's target, so watch that name.
        let watched = (try? DurableFile.resolveTarget(self.url)) ?? self.url
        counterOwner = InotifyHub.shared?.watch(watched)
        fromHub = true
        _counter = counterOwner.map { Unmanaged.passUnretained($0) }
        listeners = counterOwner ?? ChangeCounter()
        if counterOwner == nil {
            fallback.withLock { $0.signature = FileSignature(path: self.url.path) }
        }
    }

    /// A monitor driven by `counter` alone (a `MemoryFolder` file bumps it on every write).
    init(url: URL, counter: ChangeCounter) {
        self.url = url
        counterOwner = counter
        fromHub = false
        _counter = Unmanaged.passUnretained(counter)
        listeners = counter
    }

    deinit {
        if fromHub, let counter { InotifyHub.shared?.unwatch(url, counter) }
    }

    /// Calls `listener` on FileStorageKit's change thread (not a task of the cooperative pool) soon
    /// after the file may have changed: as inotify reports it, or within `fallbackInterval` when the
    /// monitor polls. Several changes in a row may be told once. Delivery stops when the returned
    /// subscription is cancelled or released.
    public func addListener(_ listener: @escaping @Sendable () -> Void) -> ChangeSubscription {
        let id = listeners.addListener(listener)
        if counterOwner == nil { ChangeDelivery.shared.poll(self) }
        return ChangeSubscription { [listeners] in listeners.removeListener(id) }
    }

    /// Whether changes are reported by inotify (`true`) or by the polling fallback.
    public var usesInotify: Bool { counter != nil }

    /// How many of the token's moves were *not* this monitor's own writes (see `ownWriteCounter`), or
    /// `nil` when that cannot be told: the fallback polls, or the kernel dropped the folder's watch.
    ///
    /// Read it after `changeToken`: a move that is not an own write counts here before it counts in the
    /// token, so a reader that finds this number unchanged since it last read the file knows every
    /// move it saw came from its own writes.
    var externalChanges: UInt64? {
        guard let counter, !counter.lost.load(ordering: .acquiring) else { return nil }
        return counter.external.load(ordering: .acquiring)
    }

    /// How many close-after-write events named the file (inotify only; 0 when polling). Tests that
    /// hold an own write to zero reads skip a window in which this moved: see `ChangeCounter.closeWrites`.
    var closeWriteEvents: Int { counter?.closeWrites.load(ordering: .acquiring) ?? 0 }

    /// The counter a `DurableFile` write through this monitor's document announces its rename to, so
    /// the event it raises counts as the document's own (`nil` without inotify, and once the watch is
    /// lost: no event would ever match the announcement).
    var ownWriteCounter: ChangeCounter? {
        guard fromHub, let counter, !counter.lost.load(ordering: .acquiring) else { return nil }
        return counter
    }

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
    /// The bumps that were not the owner's own writes (`bumpOwn`): every bump but those.
    let external = Atomic<UInt64>(0)
    /// Close-after-write events that named the file, counted before their bump: another process
    /// writing it in place, or a late close of an own write's temporary file. A child process spawned
    /// (by any thread) while a write's descriptor is open holds a copy until it calls `exec`; when that
    /// comes after the rename, the last close happens in the child and the event names the file by
    /// its new name. It counts as an outside change: one extra read, never a missed change.
    let closeWrites = Atomic<Int>(0)
    /// Set when the kernel dropped the folder's watch (the folder was removed or unmounted).
    @usableFromInline let lost = Atomic<Bool>(false)
    /// Whether the counter waits in `ChangeDelivery`'s queue.
    let queued = Atomic<Bool>(false)
    private let listenerCount = Atomic<Int>(0)
    private let listenerTable = Mutex<(next: UInt64, table: [UInt64: @Sendable () -> Void])>((0, [:]))
    init() {}

    /// Counts a change and, when anyone listens, queues their delivery.
    func bump() {
        // Before `value`: a reader that sees the new token (acquiring) then sees this count too.
        external.add(1, ordering: .releasing)
        bumpOwn()
    }

    /// Counts a change the owner made itself (its document's rename onto the file, recognized by the
    /// inotify hub): the token moves and listeners are told as for any change, but `external` stays.
    func bumpOwn() {
        value.add(1, ordering: .releasing)
        if listenerCount.load(ordering: .acquiring) > 0 { ChangeDelivery.shared.enqueue(self) }
    }

    func addListener(_ listener: @escaping @Sendable () -> Void) -> UInt64 {
        listenerTable.withLock { state in
            let id = state.next
            state.next += 1
            state.table[id] = listener
            listenerCount.store(state.table.count, ordering: .releasing)
            return id
        }
    }

    func removeListener(_ id: UInt64) {
        listenerTable.withLock { state in
            state.table[id] = nil
            listenerCount.store(state.table.count, ordering: .releasing)
        }
    }

    /// Calls every listener (on the change thread).
    func deliver() {
        let all = listenerTable.withLock { Array($0.table.values) }
        for listener in all { listener() }
    }
}
