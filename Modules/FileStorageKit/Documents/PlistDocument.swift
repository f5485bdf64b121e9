import Foundation
import PlistCodec
import Synchronization

/// One property-list document under FileStorageKit's rules: the seam every file-backed store is built on.
///
/// A document owns what each store would otherwise hand-code around its file:
/// - **Reads** (`read()`), cached: the decoded content is kept with the monitor's change token and the
///   bytes it came from, so a read while nothing changed costs one atomic load, and a change that
///   left the bytes equal (a store's own write seen again through inotify) costs no decode.
/// - **Read-modify-write** (`update(_:)`, synchronous or `async`) under the exclusive lock: the newest
///   bytes are read under the lock, the body changes the content, and the result is written durably
///   (`DurableFile`) only when its bytes differ. Concurrent writers in any process never interleave.
/// - **One re-entrancy rule**: the lock is re-entrant within a thread or task (a `withLock` or `update`
///   inside another one for the same document runs directly), but an `update` nested inside another
///   `update`'s body throws `FileStorageError.nestedUpdate`: the outer write would overwrite it.
/// - **Corrupt files** (`CorruptFilePolicy`): reported as `.corrupt` and never overwritten, or moved
///   aside (`DurableFile.moveAside`) and reported to `onCorruptFile`, the store going on from empty.
///   Under `.moveAside` an empty file reads as no content and stays (another program creating the
///   file in place is seen empty first, and moving it aside would take that program's bytes with it).
/// - **Stale temporary files** from killed writers are removed by the writes (`DurableFile`).
/// - **Change deliveries** (`onChange(_:)`), pushed from the inotify thread through FileStorageKit's
///   change thread: another process's write reaches a store even while the cooperative pool is blocked.
///
/// The same document lives on disk (`StorageFolder.folder(_:)` and the standard folders) or in a
/// `MemoryFolder` (`.memory(_:)`) with the same semantics, so store tests need no disk.
///
/// ```swift
/// let counter = PlistDocument<[String: Int]>(fileName: "count.plist", in: .folder(folder), coding: .init(
///     empty: { [:] },
///     decode: { try PlistDecoder().decode([String: Int].self, from: $0) },
///     encode: { new, _ in try PlistEncoder().encode(new) }))
/// try counter.update { $0["launches", default: 0] += 1 }
/// let subscription = counter.onChange { print("changed") }
/// ```
// @unchecked Sendable: every mutable field is guarded by `state` (the rest are constants, atomics or `Sendable`); `Content` and `Coding`'s closures are the caller's: the package's stores use value types and pure codings
public final class PlistDocument<Content>: @unchecked Sendable {
    /// How the document's content is made from bytes and back.
    ///
    /// ```swift
    /// let coding = PlistDocument<[String: Int]>.Coding(
    ///     empty: { [:] },
    ///     decode: { try PlistDecoder().decode([String: Int].self, from: $0) },
    ///     encode: { new, old in new == old ? nil : try PlistEncoder().encode(new) })
    /// ```
    public struct Coding {
        /// The content when there is no file.
        public var empty: () -> Content
        /// Decodes bytes. A `PlistError` (or an error wrapping one) means the bytes are corrupt; a
        /// `FileStorageError` is passed on as it is; any other error becomes `.decodingFailed`.
        public var decode: (Data) throws -> Content
        /// Encodes `new` (the content after an update; `old` is what it was before). `nil` means
        /// "nothing to write"; bytes equal to the file's are not written either.
        public var encode: (_ new: Content, _ old: Content) throws -> Data?
        /// What a reader should see after `bytes` were written from `content` (by default `content`);
        /// a store whose format loses precision (XML dates) decodes the bytes again.
        public var written: ((_ bytes: Data, _ content: Content) -> Content)?

        /// Creates a coding from its parts.
        ///
        /// - Parameters:
        ///   - empty: The content when there is no file.
        ///   - decode: Decodes bytes; a `PlistError` in what it throws marks the file corrupt.
        ///   - encode: Encodes the content after an update (`new`) given the one before (`old`), or
        ///     returns `nil` for nothing to write.
        ///   - written: What a reader sees after a write; `nil` for the content as it was encoded.
        public init(empty: @escaping () -> Content, decode: @escaping (Data) throws -> Content,
                    encode: @escaping (_ new: Content, _ old: Content) throws -> Data?,
                    written: ((_ bytes: Data, _ content: Content) -> Content)? = nil) {
            self.empty = empty
            self.decode = decode
            self.encode = encode
            self.written = written
        }
    }

    /// What a document does with bytes that are not a valid property list of its shape.
    ///
    /// ```swift
    /// let document = PlistDocument<Int>(fileName: "count.plist", in: .folder(folder),
    ///                                   corruptFilePolicy: .moveAside(label: "corrupt"),
    ///                                   onCorruptFile: { error, movedTo in print(error, movedTo as Any) },
    ///                                   coding: coding)
    /// ```
    public enum CorruptFilePolicy: Sendable, Equatable {
        /// Reads and updates throw `FileStorageError.corrupt`; the file is never overwritten.
        case report
        /// The file is renamed to `<name>.<label>-<timestamp>` under the lock, `onCorruptFile` is told,
        /// and the document goes on as if there were no file.
        case moveAside(label: String)
    }

    struct Cache {
        var token: UInt64
        var bytes: Data?
        var content: Content
        /// The monitor's `externalChanges` read before `bytes` were known to be the file's (`nil`: the
        /// monitor cannot tell, or a write of this document overlapped). While it stays the same, every
        /// move of the token was this document's own write, whose bytes these are: no read is needed.
        var external: UInt64?
    }

    /// The file (for a memory document, `/<folder name>/<file name>`).
    public let url: URL
    /// How long a write waits for another writer's lock.
    public let lockTimeout: Duration
    /// What happens to corrupt bytes.
    public let corruptFilePolicy: CorruptFilePolicy
    /// Told (on the thread that found it) when a corrupt file was moved aside: the `.corrupt` error,
    /// and where the bytes went (`nil` if the rename failed; the read or update then throws why).
    public let onCorruptFile: (@Sendable (FileStorageError, URL?) -> Void)?

    let backend: any DocumentBackend
    /// The backend's current monitor, unretained for a lock-free hot path (the backend keeps every
    /// monitor it ever used alive), and how many times it was replaced.
    let currentMonitor: Atomic<Unmanaged<FileChangeMonitor>>
    let monitorGeneration = Atomic<UInt64>(0)
    let coding: Coding
    let lockKey: String
    let state = NSLock()
    // Guarded by `state`.
    var cache: Cache?
    var writes = 0
    /// Odd while this document writes; a read that overlaps a write must not vouch for what it cached.
    var writeEpoch: UInt64 = 0
    var fileReads = 0
    // Change deliveries (`PlistDocument+Changes.swift`).
    var listeners: [UInt64: @Sendable () -> Void] = [:]
    var nextListener: UInt64 = 0
    var monitorSubscription: ChangeSubscription?

    /// Opens the document `fileName` in `folder`; nothing is created until the first write.
    public init(fileName: String, in folder: StorageFolder, appName: String = AppDirectories.programName,
                lockTimeout: Duration = FileLock.defaultTimeout, corruptFilePolicy: CorruptFilePolicy = .report,
                onCorruptFile: (@Sendable (FileStorageError, URL?) -> Void)? = nil, coding: Coding) {
        switch folder.kind {
        case .memory(let memory):
            backend = MemoryDocumentBackend(folder: memory, fileName: fileName)
        default:
            backend = FileDocumentBackend(url: folder.url(appName: appName).appendingPathComponent(fileName))
        }
        url = backend.url
        currentMonitor = Atomic(Unmanaged.passUnretained(backend.monitor))
        lockKey = folder.isMemory ? "memory:" + url.path : url.path
        self.lockTimeout = lockTimeout
        self.corruptFilePolicy = corruptFilePolicy
        self.onCorruptFile = onCorruptFile
        self.coding = coding
    }

    /// Opens the document at `url` on disk.
    public convenience init(url: URL, lockTimeout: Duration = FileLock.defaultTimeout,
                            corruptFilePolicy: CorruptFilePolicy = .report,
                            onCorruptFile: (@Sendable (FileStorageError, URL?) -> Void)? = nil, coding: Coding) {
        self.init(fileName: url.lastPathComponent, in: .folder(url.deletingLastPathComponent()),
                  lockTimeout: lockTimeout, corruptFilePolicy: corruptFilePolicy, onCorruptFile: onCorruptFile,
                  coding: coding)
    }

    /// The monitor whose `changeToken` moves whenever the document may have changed (one atomic load
    /// with inotify; stores check it on their hot paths).
    public var monitor: FileChangeMonitor { currentMonitor.load(ordering: .acquiring).takeUnretainedValue() }

    /// A value that changes whenever the document may have changed: the monitor's token, and a new
    /// range of values whenever the monitor is replaced (the first write switches a document whose
    /// folder did not exist to inotify). Lock-free: stores check it on every get.
    public var changeToken: UInt64 {
        let token = currentMonitor.load(ordering: .acquiring)._withUnsafeGuaranteedRef { $0.changeToken }
        return token ^ (monitorGeneration.load(ordering: .acquiring) << 56)
    }

    /// The monitor's count of changes that were not this document's own writes; read it after
    /// `changeToken` (see `FileChangeMonitor.externalChanges`). Not on the hot path: only when the
    /// token moved.
    var externalChanges: UInt64? {
        currentMonitor.load(ordering: .acquiring)._withUnsafeGuaranteedRef { $0.externalChanges }
    }

    /// `changeToken`, then `externalChanges`.
    func tokens() -> (token: UInt64, external: UInt64?) {
        let token = changeToken
        return (token, externalChanges)
    }

    /// Documents written by this instance (bytes that differed from the file's).
    public var writeCount: Int { state.withLock { writes } }

    /// How many times this instance read the file (for tests).
    var fileReadCount: Int { state.withLock { fileReads } }

    /// Whether the cache vouches for moves of the token that are this document's own writes, so that
    /// their events cost no read (for tests).
    var cacheVouchesForOwnWrites: Bool { state.withLock { cache?.external != nil } }

}
