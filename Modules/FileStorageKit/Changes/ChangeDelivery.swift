import Foundation
import Synchronization

/// The thread that tells documents their file changed: fed by the inotify thread (and by
/// `MemoryFolder` writes), and polling the monitors that cannot use inotify.
///
/// It is a plain `Thread`, not a task: a change from another process is delivered even while every
/// thread of Swift's cooperative pool is busy or blocked. Listeners run on it one after another, so a
/// listener should do little (read the document, publish, return).
// @unchecked Sendable: `pending` and `polled` are only touched under `condition`; there are no other mutable fields
final class ChangeDelivery: @unchecked Sendable {
    static let shared = ChangeDelivery()

    private struct WeakMonitor {
        weak var monitor: FileChangeMonitor?
        var seen: UInt64
    }

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var pending: [ChangeCounter] = []
    private var polled: [ObjectIdentifier: WeakMonitor] = [:]

    private init() {
        let thread = Thread { [self] in
            ThreadName.set("fsk-changes")
            run()
        }
        thread.start()
    }

    /// Queues `counter`'s listeners for delivery (once, however many bumps arrive before they run).
    func enqueue(_ counter: ChangeCounter) {
        guard !counter.queued.exchange(true, ordering: .acquiringAndReleasing) else { return }
        condition.lock()
        pending.append(counter)
        condition.signal()
        condition.unlock()
    }

    /// Checks `monitor`'s token every `FileChangeMonitor.fallbackInterval` while it lives.
    func poll(_ monitor: FileChangeMonitor) {
        condition.lock()
        polled[ObjectIdentifier(monitor)] = WeakMonitor(monitor: monitor, seen: monitor.changeToken)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            if pending.isEmpty {
                if polled.isEmpty {
                    condition.wait()
                } else {
                    _ = condition.wait(until: Date().addingTimeInterval(0.05))
                }
            }
            let batch = pending
            pending = []
            polled = polled.filter { $0.value.monitor != nil }
            let watched = polled
            condition.unlock()

            for counter in batch {
                counter.queued.store(false, ordering: .releasing)
                counter.deliver()
            }
            var seen: [ObjectIdentifier: UInt64] = [:]
            for (id, entry) in watched {
                guard let monitor = entry.monitor else { continue }
                let token = monitor.changeToken
                if token != entry.seen {
                    seen[id] = token
                    monitor.listeners.deliver()
                }
            }
            guard !seen.isEmpty else { continue }
            condition.lock()
            for (id, token) in seen { polled[id]?.seen = token }
            condition.unlock()
        }
    }
}

/// A registration for change deliveries; delivery stops when it is cancelled or released.
///
/// Keep it as long as the deliveries are wanted:
///
/// ```swift
/// let subscription = suite.observe { key in print("\(key) changed") }
/// // ...
/// subscription.cancel()       // or let it go
/// ```
public final class ChangeSubscription: Sendable {
    private let cancellation: Mutex<(@Sendable () -> Void)?>

    /// Creates a subscription that runs `cancel` once, when cancelled or released.
    public init(_ cancel: @escaping @Sendable () -> Void) {
        cancellation = Mutex(cancel)
    }

    /// Stops the deliveries (a delivery already running finishes).
    public func cancel() {
        let cancel = cancellation.withLock { current -> (@Sendable () -> Void)? in
            defer { current = nil }
            return current
        }
        cancel?()
    }

    deinit { cancel() }
}

/// A value handed to a `@Sendable` closure whose thread safety its owner guarantees (the stores
/// guard their state with locks). For the package's own stores only.
// @unchecked Sendable: a deliberate escape hatch, package-only: whoever wraps `value` vouches for it (the stores guard what it reaches with their locks)
package struct UncheckedSendable<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}

/// The kernel's name of the calling thread (15 bytes at most), which debuggers, `top -H` and tests see.
/// Foundation's `Thread.name` does not reach the kernel on Linux, and Glibc's `pthread_setname_np`
/// is not imported into Swift, so it goes through `/proc/thread-self/comm` (Linux only).
package enum ThreadName {
    private static let path = "/proc/thread-self/comm"

    package static func set(_ name: String) {
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        try? handle.write(contentsOf: Data(name.utf8))
        try? handle.close()
    }

    package static var current: String {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").trimmingCharacters(in: .newlines)
    }
}
