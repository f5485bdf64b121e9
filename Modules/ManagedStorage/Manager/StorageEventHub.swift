import FileStorageKit
import Foundation
import Synchronization

/// Where a manager's errors, changes and resets go: a handler, any number of async streams, and
/// standard error when nothing listens for errors.
///
/// Change streams never lose a change: each has a mailbox (FileStorageKit's `EventMailbox`) that, when
/// its consumer falls more than ``changeBufferCapacity`` changes behind, folds what waits into one
/// ``StorageChanges/overflowed`` change (refetch): that refetch reads the database as it is, which
/// includes every folded commit, so memory stays bounded and the consumer always learns that it
/// missed something. A reset among the folded changes stays a reset. Error and reset streams keep the newest 1,000 errors
/// and 100 resets: an error report may be lost to a consumer that far behind, a reset never is (the
/// newest one stands for the others, and the change stream carries it too).
final class StorageEventHub: Sendable {
    /// How many changes a change stream holds for a consumer that is behind, before folding them.
    static let changeBufferCapacity = 1000

    /// A change stream's mailbox, held weakly: the stream owns it.
    private struct WeakMailbox {
        weak var mailbox: EventMailbox<StorageChanges>?
    }

    /// The open streams of one kind of event.
    private struct Subscribers<Element: Sendable> {
        var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
    }

    private struct State {
        var onError: (@Sendable (StorageError) -> Void)?
        var errors = Subscribers<StorageError>()
        var changes: [Int: WeakMailbox] = [:]
        var resets = Subscribers<Void>()
        var nextID = 0
        /// The sequence number of the last change published.
        var sequence = 0
    }

    private let state: Mutex<State>
    private let label: String
    private let changeCapacity: Int

    init(label: String, onError: (@Sendable (StorageError) -> Void)?, changeCapacity: Int = changeBufferCapacity) {
        self.label = label
        self.changeCapacity = changeCapacity
        self.state = Mutex(State(onError: onError))
    }

    var onError: (@Sendable (StorageError) -> Void)? {
        get { state.withLock { $0.onError } }
        set { state.withLock { $0.onError = newValue } }
    }

    func report(_ error: StorageError) {
        let (handler, streams) = state.withLock { ($0.onError, Array($0.errors.continuations.values)) }
        handler?(error)
        for stream in streams { stream.yield(error) }
        if handler == nil && streams.isEmpty {
            FileHandle.standardError.write(Data("ManagedStorage (\(label)): \(error)\n".utf8))
        }
    }

    /// Numbers `changes` and hands it to every change stream; under the lock, so every stream gets
    /// the changes of all publishers in one order.
    func publish(_ changes: StorageChanges) {
        var changes = changes
        state.withLock { state in
            state.sequence += 1
            changes.sequence = state.sequence
            var gone: [Int] = []
            for (id, entry) in state.changes {
                if let mailbox = entry.mailbox { mailbox.push(changes) } else { gone.append(id) }
            }
            for id in gone { state.changes[id] = nil }
        }
    }

    /// The sequence number of the last change published.
    var publishedSequence: Int { state.withLock { $0.sequence } }

    func publishReset() {
        for stream in state.withLock({ Array($0.resets.continuations.values) }) { stream.yield(()) }
    }

    func errors() -> AsyncStream<StorageError> { subscribe(\.errors, buffering: 1000) }
    /// A stream of every change published from now on; a consumer that is behind gets an overflow change.
    func changes() -> AsyncStream<StorageChanges> {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let mailbox = EventMailbox<StorageChanges>(capacity: changeCapacity, fold: Self.fold)
        // The hub forgets the mailbox when its consumer cancels.
        mailbox.bind(ChangeSubscription { [weak self] in
            self?.state.withLock { _ = $0.changes.removeValue(forKey: id) }
        })
        state.withLock { $0.changes[id] = WeakMailbox(mailbox: mailbox) }
        return mailbox.stream()
    }
    /// Every waiting change, the newest last, as one overflow change through the newest (a reset
    /// among them stays a reset: results report it as one, not as deletions).
    @Sendable private static func fold(_ waiting: [StorageChanges]) -> [StorageChanges] {
        var folded = StorageChanges.overflow(through: waiting.last?.sequence ?? 0)
        for change in waiting { folded.resetEntities.formUnion(change.resetEntities) }
        return [folded]
    }

    func resets() -> AsyncStream<Void> { subscribe(\.resets, buffering: 100) }

    /// A new stream registered in `subscribers`, removed again when it ends.
    private func subscribe<Element: Sendable>(_ subscribers: WritableKeyPath<State, Subscribers<Element>> & Sendable,
                                              buffering: Int) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(buffering))
        let id = state.withLock { state in
            state.nextID += 1
            state[keyPath: subscribers].continuations[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0[keyPath: subscribers].continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func finish() {
        let all = state.withLock { state in
            defer { state.errors = .init(); state.changes = .init(); state.resets = .init() }
            return (Array(state.errors.continuations.values), state.changes.values.compactMap(\.mailbox),
                    Array(state.resets.continuations.values))
        }
        all.0.forEach { $0.finish() }
        all.1.forEach { $0.finish() }
        all.2.forEach { $0.finish() }
    }
}
