import FileStorageKit
import Foundation
import PlistCodec

/// An array of Codable items kept in one property-list file: create, read, update, delete.
///
/// The file is a binary property list holding one array, byte-for-byte what
/// `PropertyListEncoder().encode(items)` writes, so it moves freely between this type and Apple's
/// encoder. Every mutation is a read-merge-write under FileStorageKit's exclusive file lock and is
/// written durably (temporary file, `fsync`, rename, folder `fsync`), so several processes can add
/// items to the same file without losing each other's, and a crash leaves either the old or the new
/// version. A file that cannot be decoded is never overwritten: the mutation throws
/// ``DataPersistenceError/propertyListDecodingError(_:)`` and the file stays as it was.
///
/// ```swift
/// struct Card: Codable, Equatable, Identifiable { var id: UUID; var front: String; var back: String }
///
/// let cards = DataPersistence<Card>(filename: "cards.plist")            // ~/Documents/<app>/cards.plist
/// try cards.createItem(Card(id: UUID(), front: "hola", back: "hello"))
/// var all = try cards.loadItems()
/// try cards.updateItem(Card(id: all[0].id, front: "hola", back: "hi"), at: 0)
/// try cards.transaction { items in                                    // many changes, one write
///     items.removeAll { $0.front.isEmpty }
///     items.sort { $0.front < $1.front }
/// }
/// ```
///
/// ## Indexes
/// An index means a position in the items as this instance last saw them: the array `loadItems()`
/// returned, or the result of this instance's last mutation. If another process changed the file
/// since and the item at that index is no longer the one the caller saw, `updateItem(_:at:)` and
/// `deleteItem(at:)` throw ``DataPersistenceError/indexConflict(index:path:)`` instead of touching
/// the wrong item.
///
/// ## Concurrency
/// An instance may be used from any thread; operations on the same file, from this or any other
/// instance or process, take turns on the file lock. The file is a FileStorageKit `PlistDocument`, so
/// its one re-entrancy rule applies: reading inside a ``transaction(_:)`` body works, but a mutation
/// there throws `.writingError(FileStorageError.nestedUpdate)`, since the transaction's own write
/// would overwrite it. Changes by other processes reach `observe(_:)` and `changes()` from
/// FileStorageKit's change thread, without Swift's cooperative pool. Each write rewrites the whole file (one array
/// is the format); use ``transaction(_:)`` to share one write between many changes.
public final class DataPersistence<T: Writeable> {
    /// The file name given at creation.
    public let filename: String
    /// The folder given at creation.
    public let directory: PersistenceDirectory
    /// Where the file is (or will be).
    public let url: URL
    /// How long a mutation waits for another process's lock before throwing `.writingError`.
    public let lockTimeout: Duration

    let invalidFilename: Bool
    /// The file: its lock, cache, corrupt-file rule (report, never overwrite) and change deliveries.
    let document: PlistDocument<[T]>
    /// Held for a whole read or mutation of this instance, so a reader never sees this instance's own
    /// write between the rename and the cache update and takes it for another writer's change.
    let operationLock = NSRecursiveLock()
    let lock = NSLock()
    /// Guarded by `lock`.
    var state = State()

    struct State {
        /// The file's bytes and what they decode to, as this instance last read or wrote them.
        /// The items as this instance last read or wrote them (`nil` before the first look): what a
        /// change is told against.
        var known: [T]?
        /// Counts the changes of `known`: each announcement carries the count after its change, so a
        /// `changes()` stream that folded its queue into `known` drops the announcements it holds.
        var knownVersion: UInt64 = 0
        /// A change delivery found the instance busy; whoever holds `operationLock` looks again.
        var refreshPending = false
        /// The items as the caller last saw them: what indexes refer to.
        var seen: [T]?
        weak var delegate: (any DataPersistenceDelegate)?
        /// Each observer (`observe(_:)`, `changes()` streams), told each change and its `knownVersion`.
        var observers: [Int: (DataPersistenceChange<T>, UInt64) -> Void] = [:]
        var nextObserver = 0
        /// The document's change deliveries, while anyone observes.
        var delivery: ChangeSubscription?
        /// Told about failures of the tutorial's non-throwing operations.
        var onError: ((DataPersistenceError) -> Void)?
    }

    /// Creates a store for `filename` in `directory`.
    ///
    /// Creating it touches nothing on disk; the folder is created by the first write. A filename
    /// that is not one path component makes every operation throw
    /// ``DataPersistenceError/invalidFilename(_:)``.
    ///
    /// - Parameters:
    ///   - filename: The file's name, e.g. `"events.plist"`.
    ///   - directory: The folder; `.documents` (the app's documents folder) by default.
    ///   - appName: The app subfolder of the named folders; the process name by default.
    ///   - lockTimeout: How long a mutation waits for the file lock.
    public init(filename: String, directory: PersistenceDirectory = .documents,
                appName: String = ProcessInfo.processInfo.processName,
                lockTimeout: Duration = FileLock.defaultTimeout) {
        self.filename = filename
        self.directory = directory
        self.lockTimeout = lockTimeout
        invalidFilename = filename.isEmpty || filename == "." || filename == ".."
            || filename.contains("/") || filename.contains("\0")
        let name = invalidFilename ? "_" : filename
        let url = directory.url(appName: appName).appendingPathComponent(name)
        self.url = url
        document = PlistDocument(fileName: name, in: directory, appName: appName, lockTimeout: lockTimeout,
                                 coding: Self.coding(url: url))
    }

    /// The object told about each item saved or deleted through this instance.
    public var delegate: (any DataPersistenceDelegate)? {
        get { lock.withLock { state.delegate } }
        set { lock.withLock { state.delegate = newValue } }
    }

    // MARK: Reading

    /// All items in the file, in order; an empty array when the file does not exist yet.
    ///
    /// Indexes passed to `updateItem(_:at:)` and `deleteItem(at:)` refer to the array returned here.
    /// A file another process changed is read afresh; an unchanged one is not decoded again.
    ///
    /// - Throws: ``DataPersistenceError/propertyListDecodingError(_:)`` for a file that is not an
    ///   array of `T`, `.readingError` or `.noContentsAtPath` when it cannot be read,
    ///   ``DataPersistenceError/invalidFilename(_:)`` when the instance was made with one.
    public func loadItems() throws(DataPersistenceError) -> [T] {
        try checkFilename()
        let (items, told) = try current()
        lock.withLock { state.seen = items }
        publish(told)
        return items
    }

    /// Whether an item equal to `item` is in the file now.
    ///
    /// - Throws: As `loadItems()`. The tutorial's `hasItemBeenSaved(_:)` answers `false` instead,
    ///   and reports the error through `onError`, the delegate and `changes()`.
    public func containsItem(_ item: T) throws(DataPersistenceError) -> Bool {
        try loadItems().contains(item)
    }

    /// How many times this instance has written the file (for tests and benchmarks).
    package var writeCount: Int { document.writeCount }

    // MARK: Internals

    func checkFilename() throws(DataPersistenceError) {
        if invalidFilename { throw .invalidFilename(filename) }
    }

    /// The file's items now, decoded only if its bytes differ from what this instance last saw, and
    /// the change to announce when another process changed it.
    func current() throws(DataPersistenceError) -> ([T], Told) {
        operationLock.lock()
        defer {
            operationLock.unlock()
            lookAgainIfAsked()
        }
        return try currentHoldingOperationLock()
    }

    /// `current()` for a caller that holds `operationLock`.
    func currentHoldingOperationLock() throws(DataPersistenceError) -> ([T], Told) {
        let items: [T]
        do {
            // Always the file's bytes (a write just before may not have reached the change monitor);
            // bytes equal to the last ones are not decoded again.
            items = try document.readFresh()
        } catch {
            throw readFailure(error)
        }
        return (items, noticed(items))
    }

    /// Changes to announce, and the `knownVersion` they bring the items to.
    typealias Told = (changes: [DataPersistenceChange<T>], version: UInt64)

    /// Records `items` as the file's contents; returns the change to tell when another writer made it.
    func noticed(_ items: [T]) -> Told {
        lock.withLock {
            let old = state.known
            state.known = items
            guard let old, old != items else { return ([], state.knownVersion) }
            state.knownVersion += 1
            return ([.externalChange(items)], state.knownVersion)
        }
    }

    /// The items as this instance last read or wrote them, and their `knownVersion`.
    func knownItems() -> (items: [T], version: UInt64)? {
        lock.withLock { state.known.map { ($0, state.knownVersion) } }
    }

    /// The typed error for a failed read.
    func readFailure(_ error: FileStorageError) -> DataPersistenceError {
        switch error {
        case .io(_, _, let code) where code == EISDIR: return .noContentsAtPath(url.path)
        case .corrupt, .decodingFailed: return .propertyListDecodingError(error)
        default: return .readingError(error)
        }
    }

    /// The file's coding: a binary property list holding one array, as `PropertyListEncoder` writes it.
    static func coding(url: URL) -> PlistDocument<[T]>.Coding {
        PlistDocument<[T]>.Coding(
            empty: { [] },
            decode: { bytes in
                do {
                    return try PlistDecoder().decode([T].self, from: bytes)
                } catch {
                    if let malformed = PlistError.found(in: error) { throw malformed }
                    throw FileStorageError.decodingFailed(url, describe(error))
                }
            },
            encode: { items, _ in
                do {
                    return try PlistEncoder().encode(items)
                } catch {
                    throw FileStorageError.encodingFailed(url, describe(error))
                }
            })
    }

    static func describe(_ error: any Error) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.isEmpty ? "top level" : keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c),
             DecodingError.keyNotFound(_, let c), DecodingError.dataCorrupted(let c):
            return "at \(path(c.codingPath)): \(c.debugDescription)"
        case EncodingError.invalidValue(_, let c):
            return "at \(path(c.codingPath)): \(c.debugDescription)"
        default:
            return "\(error)"
        }
    }
}

/// Safe to share between threads when the items are: all state is behind a lock.
// @unchecked Sendable: `state` is only touched under `lock` and every other field is a constant or `Sendable` (`document`'s own state is behind its lock)
extension DataPersistence: @unchecked Sendable where T: Sendable {}
