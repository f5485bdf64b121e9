import Foundation
import PlistCodec

extension DefaultsSuite {
    // MARK: Observing

    /// Calls `handler` with each key that changes, by this process or another, until the returned
    /// subscription is cancelled or released.
    ///
    /// Another process's change is told on FileStorageKit's change thread as soon as inotify reports
    /// it (no task of Swift's cooperative pool is involved, so it arrives even while the pool is
    /// blocked); this process's own writes are told on the writing thread, after the write.
    /// The handler may read the suite.
    public func observe(_ handler: @escaping @Sendable (String) -> Void) -> ChangeSubscription {
        addObserver(handler, finish: nil)
    }

    private func addObserver(_ handler: @escaping @Sendable (String) -> Void,
                             finish: (@Sendable () -> Void)?) -> ChangeSubscription {
        let id = state.withLock { s in
            let id = s.nextObserver
            s.nextObserver += 1
            s.observers[id] = handler
            s.finishers[id] = finish
            if s.delivery == nil {
                s.delivery = document.onChange { [weak self] in self?.refreshIfChanged() }
            }
            return id
        }
        // Start from the file as it is now, so the first change told is a change.
        refreshIfChanged()
        return ChangeSubscription { [weak self] in
            self?.state.withLock { s in
                s.observers[id] = nil
                s.finishers[id] = nil
            }
        }
    }

    /// The keys that change, by this process or another, from now until the stream is dropped
    /// (`observe(_:)` as an async sequence); it ends when the suite is released.
    ///
    /// No change is lost to a consumer that falls behind: when more than
    /// ``changeStreamCapacity`` keys wait, they are folded into each key once (in the order each
    /// first waited), so the consumer still hears every key that changed, if not how many times.
    public func changes() -> AsyncStream<String> {
        let mailbox = EventMailbox<String>(capacity: Self.changeStreamCapacity, fold: Self.eachKeyOnce)
        let subscription = addObserver({ [weak mailbox] key in mailbox?.push(key) },
                                       finish: { [weak mailbox] in mailbox?.finish() })
        mailbox.bind(subscription)
        return mailbox.stream()
    }

    /// How many changed keys a `changes()` stream holds for a consumer that is behind before it
    /// folds them into each key once.
    public static let changeStreamCapacity = 1024

    /// `keys` with each key once, where it first appears.
    static func eachKeyOnce(_ keys: [String]) -> [String] {
        var seen = Set<String>(minimumCapacity: keys.count)
        return keys.filter { seen.insert($0).inserted }
    }

    /// How many observers and streams are subscribed (for tests).
    var observerCount: Int { state.withLock { $0.observers.count } }

    /// Makes `new` the stored values; returns the changed keys and who to tell (outside the lock).
    func replaceStored(with new: PlistDictionary, _ s: inout State) -> ([String], [@Sendable (String) -> Void]) {
        let old = s.stored
        s.stored = new
        guard !s.observers.isEmpty, !old.hasSameContents(as: new) else { return ([], []) }
        var changed: [String] = []
        for (k, v) in new where !(old[k].map { $0.hasSameContents(as: v) } ?? false) { changed.append(k) }
        for k in old.keys where new[k] == nil { changed.append(k) }
        return (changed, Array(s.observers.values))
    }

    func tell(_ told: ([String], [@Sendable (String) -> Void])) {
        for key in told.0 { for handler in told.1 { handler(key) } }
    }
}
