#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Stands in for a computed node in the dependent lists of the nodes it reads.
///
/// Those lists must not keep the computed node alive (its rule keeps them alive: a cycle), and a weak
/// reference would give every computed node a side table, which makes each of its retains and
/// releases several times slower. So the lists hold this small handle strongly, and the handle
/// reaches its node without owning it: it calls into the node only under its lock, and the node's
/// `deinit` first detaches it under the same lock, so the node cannot be gone during a call. The lock
/// is re-entrant per thread, because a call can lead back to the same handle (an observer that
/// writes, or a `deinit` set off inside the call). Only invalidation goes through the lock; it runs
/// no code of the program's own.
@usableFromInline
final class DependentHandle: @unchecked Sendable {
    private let lock = Mutex<Void>(())
    /// The thread inside `lock`, or 0.
    private let holder = Atomic<UInt>(0)
    /// Set when the node is gone; the lists holding the handle drop it when they next look.
    private let detachedFlag = Atomic<Bool>(false)
    // Guarded by `lock`; cleared by the node's `deinit` before anything else.
    @exclusivity(unchecked) nonisolated(unsafe) private unowned(unsafe) var target: (any GraphDependent)?

    init() {}

    /// Points the handle at its node (once, right after the node is made).
    func attach(_ node: any GraphDependent) {
        target = node
    }

    /// Whether the node is gone.
    var isDetached: Bool { detachedFlag.load(ordering: .relaxed) }

    /// Called first thing in the node's `deinit`: no call reaches the node afterwards.
    ///
    /// The node does not remove the handle from the lists of the nodes it read: its `deinit` can run
    /// on a thread that holds one of their locks (the last release can happen inside a write's
    /// invalidation), so those lists drop detached handles themselves.
    func detach() {
        defer { detachedFlag.store(true, ordering: .relaxed) }
        if holder.load(ordering: .relaxed) == Self.currentThread {
            // The node is going away inside a call this thread is making through the handle.
            target = nil
            return
        }
        lock.withLock { _ in target = nil }
    }

    private func withTarget(_ body: (any GraphDependent) -> Void) {
        let me = Self.currentThread
        if holder.load(ordering: .relaxed) == me {
            if let node = target { body(node) }
            return
        }
        lock.withLock { _ in
            holder.store(me, ordering: .relaxed)
            defer { holder.store(0, ordering: .relaxed) }
            if let node = target { body(node) }
        }
    }

    private static var currentThread: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}

extension DependentHandle: GraphDependent {
    @usableFromInline
    var isRetainedByDependencies: Bool { true }

    @usableFromInline
    func invalidate(_ work: inout GraphPropagation) {
        withTarget { $0.invalidate(&work) }
    }
}
