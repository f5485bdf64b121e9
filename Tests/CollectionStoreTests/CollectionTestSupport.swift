import CollectionStore
import FileStorageKit
import Foundation
import Testing
import TestSupport

/// An item with an id, a shared string and an optional, like the flashcards app's cards.
struct Note: Codable, Equatable, Identifiable, Sendable {
    var id: Int
    var title: String
    var tag: String = "inbox"
    var due: Date?
}

/// A store of `T` in the test's own folder (nothing process-wide is touched).
func store<T>(_ type: T.Type = T.self, in temp: TemporaryFolder, _ filename: String = "items.plist",
              subfolder: String? = nil) -> DataPersistence<T> {
    let folder = subfolder.map { temp.folder($0) } ?? temp.url
    return DataPersistence<T>(filename: filename, directory: .folder(folder), lockTimeout: .seconds(60))
}

/// A store of `T` in a `MemoryFolder`: the same semantics as on disk, without a disk.
func store<T>(_ type: T.Type = T.self, in memory: MemoryFolder, _ filename: String = "items.plist") -> DataPersistence<T> {
    DataPersistence<T>(filename: filename, directory: .memory(memory), lockTimeout: .seconds(60))
}

/// What Foundation's own encoder writes for `items`: the file must hold exactly this.
func foundationBytes<T: Encodable>(_ items: [T]) throws -> Data {
    try PropertyListEncoder().encode(items)
}

/// Records the changes a `DataPersistenceDelegate` hears.
final class RecordingDelegate: DataPersistenceDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var _events: [String] = []
    var events: [String] { lock.withLock { _events } }

    func didSaveItem<T>(_ persistence: DataPersistence<T>, item: T) {
        lock.withLock { _events.append("saved \(item)") }
    }

    func didDeleteItem<T>(_ persistence: DataPersistence<T>, item: T) {
        lock.withLock { _events.append("deleted \(item)") }
    }
}

/// The error `body` throws, or `nil` when it succeeds.
///
/// Tests match the result with `if case`: a `do`/`catch` with a case pattern over a typed throw
/// crashes the 6.3.1 compiler (SILGenCleanup ownership error). Any other error is recorded as an issue.
func failure(_ body: () throws -> Void) -> DataPersistenceError? {
    do {
        try body()
        return nil
    } catch let error as DataPersistenceError {
        return error
    } catch {
        Issue.record("expected a DataPersistenceError, got \(error)")
        return nil
    }
}

/// Collects what a `changes()` stream yields, for tests that wait on it against a deadline.
final class ChangeCollector<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var _changes: [DataPersistenceChange<T>] = []
    private var task: Task<Void, Never>?

    init(_ stream: AsyncStream<DataPersistenceChange<T>>) {
        task = Task { [weak self] in
            for await change in stream {
                guard let self else { return }
                self.lock.withLock { self._changes.append(change) }
            }
        }
    }

    deinit { task?.cancel() }

    var changes: [DataPersistenceChange<T>] { lock.withLock { _changes } }

    /// Waits until `count` changes arrived or `timeout` passed; returns what arrived.
    func wait(for count: Int, timeout: Duration = .seconds(60)) async -> [DataPersistenceChange<T>] {
        let deadline = ContinuousClock.now + timeout
        while changes.count < count && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return changes
    }
}
