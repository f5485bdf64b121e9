import Foundation

/// Which storage ``StorageManagerType/writerDerivedStorage`` stands for on this thread: the storage
/// of the operation running here, by manager, innermost first.
///
/// Bound by each operation of a ``SQLiteStorageManager`` and by each `perform` block of a derived
/// storage, for the block's duration only. A binding answers only on the thread that made it: a task
/// started inside a block inherits task-local values, and must not reach the block's storage from
/// another thread.
// @unchecked Sendable: `storage` and `deferred` are used only on the thread that made the binding (`isOnThisThread`); `Sendable` only to be a task-local
final class StorageBinding: @unchecked Sendable {
    let owner: ObjectIdentifier
    let storage: StorageType
    let outer: StorageBinding?
    private let thread = pthread_self()
    /// Closures to run once the operation that made this binding has committed (outermost binding
    /// of its owner only).
    private var deferred: [() -> Void] = []

    @TaskLocal static var innermost: StorageBinding?

    private init(owner: ObjectIdentifier, storage: StorageType, outer: StorageBinding?) {
        self.owner = owner
        self.storage = storage
        self.outer = outer
    }

    private var isOnThisThread: Bool { pthread_equal(thread, pthread_self()) != 0 }

    /// The storage bound for `owner` on this thread, if an operation of it is running here.
    static func storage(for owner: ObjectIdentifier) -> StorageType? {
        var binding = innermost
        while let current = binding {
            if current.owner == owner, current.isOnThisThread { return current.storage }
            binding = current.outer
        }
        return nil
    }

    /// Runs `body` with `storage` bound for `owner`; returns the closures deferred until after the
    /// commit (nonempty only when this is the owner's outermost binding here). The caller runs them
    /// once the operation has committed, or drops them when it rolled back.
    static func run<R>(owner: ObjectIdentifier, storage: StorageType,
                       _ body: () throws -> R) rethrows -> (value: R, afterCommit: [() -> Void]) {
        let binding = StorageBinding(owner: owner, storage: storage, outer: innermost)
        let value = try $innermost.withValue(binding) { try body() }
        let afterCommit = binding.deferred
        binding.deferred.removeAll()
        return (value, afterCommit)
    }

    /// Queues `closure` to run after the operation of `owner` running on this thread commits;
    /// `false` (and nothing queued) when none is running here.
    static func deferUntilCommitted(of owner: ObjectIdentifier, _ closure: @escaping () -> Void) -> Bool {
        var outermost: StorageBinding?
        var binding = innermost
        while let current = binding {
            if current.owner == owner, current.isOnThisThread { outermost = current }
            binding = current.outer
        }
        guard let outermost else { return false }
        outermost.deferred.append(closure)
        return true
    }
}

/// A block that is not `Sendable`, carried to the writer while its caller waits for it to finish.
// @unchecked Sendable: the block runs on the writer while its caller waits for it, so it never runs alongside the caller's use of what it captures
struct UncheckedBlock: @unchecked Sendable {
    let run: (StorageType) -> Void

    init(_ run: @escaping (StorageType) -> Void) {
        self.run = run
    }
}
