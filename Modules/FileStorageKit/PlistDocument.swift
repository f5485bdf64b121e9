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

    private struct Cache {
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
    private let currentMonitor: Atomic<Unmanaged<FileChangeMonitor>>
    private let monitorGeneration = Atomic<UInt64>(0)
    private let coding: Coding
    private let lockKey: String
    let state = NSLock()
    // Guarded by `state`.
    private var cache: Cache?
    private var writes = 0
    /// Odd while this document writes; a read that overlaps a write must not vouch for what it cached.
    private var writeEpoch: UInt64 = 0
    private var fileReads = 0
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
    private var externalChanges: UInt64? {
        currentMonitor.load(ordering: .acquiring)._withUnsafeGuaranteedRef { $0.externalChanges }
    }

    /// `changeToken`, then `externalChanges`.
    private func tokens() -> (token: UInt64, external: UInt64?) {
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

    // MARK: Reading

    /// The content: from memory when the change token has not moved since the last read, else read
    /// from the file (without the lock: every write replaces the file by a rename, so a read sees one
    /// whole version). No file gives `coding.empty()`.
    ///
    /// - Throws: `.corrupt` (policy `.report`), `.decodingFailed`, or the read's `FileStorageError`.
    public func read() throws(FileStorageError) -> Content {
        let token = changeToken
        if let content = state.withLock({ cache?.token == token ? cache?.content : nil }) { return content }
        let external = externalChanges
        if let content = state.withLock({ () -> Content? in
            guard var known = cache else { return nil }
            // The token moved only for this document's own writes (the inotify hub matched their
            // renames), and the cache holds the last of them: the file still has these bytes. Not
            // while a write is under way: its rename may already have moved the token, and the cache
            // still holds the bytes before it until the write records its own (a reader would take
            // the old content for the new token, and keep it as current).
            guard let external, known.external == external, writeEpoch % 2 == 0 else { return nil }
            known.token = token
            cache = known
            return known.content
        }) { return content }
        return try load(token: token, external: external, locked: false)
    }

    /// The content read from the file now, whatever the change token says.
    ///
    /// - Throws: `FileStorageError`: `.corrupt` (policy `.report`; under `.moveAside` the file is moved
    ///   and the empty content returned), `.decodingFailed`, `.permissionDenied`, `.io`.
    public func readFresh() throws(FileStorageError) -> Content {
        let (token, external) = tokens()
        return try load(token: token, external: external, locked: false)
    }

    /// Reads the bytes and decodes them unless they are the cached ones. `token` and `external` were
    /// read before the bytes.
    private func load(token: UInt64, external: UInt64?, locked: Bool) throws(FileStorageError) -> Content {
        let epoch = state.withLock { fileReads += 1; return writeEpoch }
        let bytes = try backend.read()
        if let content = state.withLock({ () -> Content? in
            guard var known = cache, known.bytes == bytes else { return nil }
            known.token = token
            if epoch == writeEpoch && epoch % 2 == 0 { known.external = external }
            cache = known
            return known.content
        }) { return content }
        let seen = Seen(token: token, external: external, epoch: epoch)
        guard let bytes else { return remember(seen, bytes: nil, content: coding.empty()) }
        return try decodeRemembering(bytes, seen, locked: locked)
    }

    /// What a reader saw before it read the bytes it caches: the tokens, and the write epoch.
    private struct Seen {
        var token: UInt64
        var external: UInt64?
        var epoch: UInt64
    }

    /// Caches `content` of `bytes`; it vouches for later moves of the token (`external`) only when no
    /// write of this document overlapped the read (an older read must not pass for the newest write).
    ///
    /// A read that a write of this document overlapped, and that ends after the write recorded what
    /// it wrote, caches nothing: the write's record is the newest this document knows, and it vouches
    /// for the write's own event, where this read's could not (the next read would go to the file).
    private func remember(_ seen: Seen, bytes: Data?, content: Content) -> Content {
        state.withLock {
            let settled = seen.epoch == writeEpoch && seen.epoch % 2 == 0
            if !settled, writeEpoch % 2 == 0, writeEpoch != seen.epoch { return }
            cache = Cache(token: seen.token, bytes: bytes, content: content, external: settled ? seen.external : nil)
        }
        return content
    }

    private func decode(_ bytes: Data) throws(FileStorageError) -> Content {
        do {
            return try coding.decode(bytes)
        } catch let error as FileStorageError {
            throw error
        } catch {
            if let malformed = PlistError.found(in: error) { throw .corrupt(url, malformed) }
            throw .decodingFailed(url, "\(error)")
        }
    }

    /// Moves `bytes` aside if the file still holds them (another writer may have replaced it).
    private func quarantine(_ bytes: Data, label: String, error: FileStorageError, locked: Bool) throws(FileStorageError) {
        let move = { [self] () throws(FileStorageError) -> URL? in
            guard try backend.read() == bytes else { return nil }
            return try backend.moveAside(label: label)
        }
        do {
            let movedTo: URL?
            if locked {
                movedTo = try move()
            } else {
                movedTo = try withLockTyped { () throws(FileStorageError) in try move() }
            }
            if let movedTo { onCorruptFile?(error, movedTo) }
        } catch let failure {
            onCorruptFile?(error, nil)
            throw failure
        }
    }

    // MARK: Writing

    /// Reads the newest content under the exclusive lock, lets `body` change it, and writes the result
    /// durably when its bytes differ from the file's. Returns what `body` returned.
    ///
    /// - Throws: `body`'s error (nothing is written), `.nestedUpdate` inside another `update` of this
    ///   document, `.corrupt` (policy `.report`), `.lockTimeout`, or the write's `FileStorageError`.
    @discardableResult
    public func update<R>(_ body: (inout Content) throws -> R) throws -> R {
        return try withLock { try updateLocked(body) }
    }

    /// The same, waiting for the lock with `Task.sleep`, so a waiting task never holds a pool thread.
    ///
    /// - Throws: As the synchronous ``update(_:)``: `body`'s error (nothing is written),
    ///   `.nestedUpdate`, `.corrupt`, `.lockTimeout`, or the write's `FileStorageError`.
    @discardableResult
    public func update<R>(isolation: isolated (any Actor)? = #isolation,
                          _ body: (inout Content) throws -> R) async throws -> R {
        return try await withLock(isolation: isolation) { try updateLocked(body) }
    }

    /// Runs `body` holding the document's exclusive lock, re-entrantly: inside another `withLock` or
    /// `update` of this document on the same thread or task, `body` runs directly. Creates the folder
    /// when missing (the lock lives beside the file).
    ///
    /// ```swift
    /// try document.withLock {
    ///     // No writer replaces the file between the read and the copy.
    ///     if let bytes = try DurableFile.readIfPresent(document.url) {
    ///         try DurableFile.write(bytes, to: backupURL)
    ///     }
    /// }
    /// ```
    ///
    /// - Throws: `FileStorageError` `.lockTimeout`, or the folder's creation error, or what `body` threw.
    public func withLock<R>(_ body: () throws -> R) throws -> R {
        if DocumentLocks.held.contains(lockKey) { return try body() }
        try prepareForWrite()
        return try backend.withExclusiveLock(timeout: lockTimeout) { try markedHeld(body) }
    }

    /// The same, waiting for the lock with `Task.sleep`.
    ///
    /// - Throws: `FileStorageError` `.lockTimeout`, or the folder's creation error, or what `body` threw.
    public func withLock<R>(isolation: isolated (any Actor)? = #isolation, _ body: () throws -> R) async throws -> R {
        if DocumentLocks.held.contains(lockKey) { return try body() }
        try prepareForWrite()
        return try await backend.withExclusiveLock(timeout: lockTimeout, isolation: isolation) { () async throws -> R in
            try markedHeld(body)
        }
    }

    /// Runs `body` holding the document's exclusive lock if no writer holds it now, without waiting;
    /// returns `nil` when one does. Re-entrant as ``withLock(_:)`` is.
    ///
    /// For a reader that must not apply what it reads while a writer is between its own read and
    /// write (a model refreshing itself from the file, say), and that would rather come back later
    /// than wait.
    ///
    /// ```swift
    /// if try document.withLockIfAvailable({ try apply(document.read()) }) == nil {
    ///     // A writer is at work: its change will come with the next refresh.
    /// }
    /// ```
    ///
    /// - Throws: `FileStorageError` when the lock file or the folder cannot be made (a read-only
    ///   folder), or what `body` threw.
    public func withLockIfAvailable<R>(_ body: () throws -> R) throws -> R? {
        if DocumentLocks.held.contains(lockKey) { return try body() }
        try prepareForWrite()
        var entered = false
        do {
            return try backend.withExclusiveLock(timeout: .zero) {
                entered = true
                return try markedHeld(body)
            }
        } catch let error as FileStorageError {
            if !entered, case .lockTimeout = error { return nil }
            throw error
        }
    }

    /// Runs `body` marked as holding this document's lock (the caller has just taken it), so a
    /// `withLock` or `update` inside it runs directly.
    private func markedHeld<R>(_ body: () throws -> R) rethrows -> R {
        try DocumentLocks.$held.withValue(DocumentLocks.held.union([lockKey])) { try body() }
    }

    private func withLockTyped<R>(_ body: () throws(FileStorageError) -> R) throws(FileStorageError) -> R {
        do {
            return try withLock { try body() }
        } catch let error as FileStorageError {
            throw error
        } catch {
            throw .io(url, operation: "lock", errno: 0)
        }
    }

    /// Creates the folder before a write (and lets the monitor start using inotify).
    private func prepareForWrite() throws(FileStorageError) {
        if try backend.prepareForWrite() {
            // A new monitor counts from zero: move to a new token range, and listen to the new one.
            currentMonitor.store(Unmanaged.passUnretained(backend.monitor), ordering: .releasing)
            monitorGeneration.add(1, ordering: .releasing)
            state.withLock {
                cache?.token = .max
                cache?.external = nil
                if monitorSubscription != nil { monitorSubscription = subscribeToMonitor() }
            }
        }
    }

    private func updateLocked<R>(_ body: (inout Content) throws -> R) throws -> R {
        guard !DocumentLocks.updating.contains(lockKey) else { throw FileStorageError.nestedUpdate(url) }
        // Always the bytes, under the lock: a writer outside the lock protocol (one that rewrites the
        // file in place and has not closed it) raises no event, so no token can vouch for the cache.
        let (token, external) = tokens()
        let seen = Seen(token: token, external: external, epoch: state.withLock { fileReads += 1; return writeEpoch })
        let bytes = try backend.read()
        let old: Content
        if let bytes {
            old = try state.withLock({ cache?.bytes == bytes ? cache?.content : nil })
                ?? decodeRemembering(bytes, seen, locked: true)
        } else {
            old = coding.empty()
        }
        var content = old
        let result = try DocumentLocks.$updating.withValue(DocumentLocks.updating.union([lockKey])) {
            try body(&content)
        }
        let encoded: Data?
        do {
            encoded = try coding.encode(content, old)
        } catch let error as FileStorageError {
            throw error
        } catch {
            throw FileStorageError.encodingFailed(url, "\(error)")
        }
        guard let encoded, encoded != bytes else {
            _ = remember(seen, bytes: bytes, content: encoded == nil ? old : content)
            return result
        }
        // While the write is under way no read may vouch for bytes it caches (`remember`): they may be
        // older than this write's. The cache itself stays good until the rename, and a read that uses it
        // while the write finishes sees the file as it was, as any read overlapping a write may.
        state.withLock { writeEpoch += 1 }
        do {
            try backend.write(encoded)
        } catch {
            // The rename may have happened (a folder that fails to sync): its own event must not pass
            // the old cache off as the file.
            state.withLock {
                writeEpoch += 1
                cache?.token = .max
                cache?.external = nil
            }
            throw error
        }
        let shown = coding.written?(encoded, content) ?? content
        state.withLock {
            cache = Cache(token: token, bytes: encoded, content: shown, external: external)
            writes += 1
            writeEpoch += 1
        }
        return result
    }

    /// Decodes `bytes` and caches them; a corrupt file is moved aside (policy permitting), taking the
    /// lock unless the caller holds it (`locked`), and the content is then empty.
    private func decodeRemembering(_ bytes: Data, _ seen: Seen, locked: Bool) throws(FileStorageError) -> Content {
        // An empty file holds nothing to lose, and is most often one another program has just created
        // and is still writing in place (its `IN_CREATE` comes before its bytes). Moving it aside would
        // take that writer's bytes with it: under `.moveAside` it reads as no content instead. (Under
        // `.report` it is reported as corrupt and never written over, which loses nothing either.)
        if bytes.isEmpty, case .moveAside = corruptFilePolicy { return remember(seen, bytes: bytes, content: coding.empty()) }
        do {
            return remember(seen, bytes: bytes, content: try decode(bytes))
        } catch {
            guard case .corrupt = error, case .moveAside(let label) = corruptFilePolicy else { throw error }
            try quarantine(bytes, label: label, error: error, locked: locked)
            return coding.empty()
        }
    }

    /// Removes the file under the lock; a missing file is not an error, and removing one writes
    /// nothing (no lock file), so it works in a folder this process may not write to.
    ///
    /// - Throws: `FileStorageError`: `.lockTimeout`, `.permissionDenied`, `.io`.
    public func remove() throws(FileStorageError) {
        guard backend.exists() else {
            state.withLock { cache = nil }
            return
        }
        try withLockTyped { () throws(FileStorageError) in
            try backend.remove()
            state.withLock { cache = nil }
        }
    }
}

/// The documents whose lock this thread or task holds, and those inside an `update` body.
enum DocumentLocks {
    @TaskLocal static var held: Set<String> = []
    @TaskLocal static var updating: Set<String> = []
}
