import Foundation
import PlistCodec
import Synchronization

/// What `UserDefaults(suiteName:)` promises, kept safely in a property-list file.
///
/// A suite lives in `<preferences>/<suite>.plist`: a binary property list with its keys sorted, as
/// Apple writes preferences, so every value (a `Date`'s fraction of a second included) comes back as
/// it was set. A file a person or another program wrote as XML is read, and rewritten as XML.
/// Reads are served from memory and reloaded only when the file changed (see `FileChangeMonitor`:
/// another process's change is seen within 100 ms). Every write is durable and merges only its own
/// key into the newest file under the exclusive lock, so concurrent processes keep each other's keys.
///
/// ```swift
/// let settings = DefaultsSuite(suiteName: "com.example.app", directories: AppDirectories(appName: "Example"))
/// settings.register(defaults: ["volume": .int(5)])
/// try settings.set(true, forKey: "onboarded")
/// let volume = settings.integer(forKey: "volume")
/// try settings.update(forKey: "launches") { $0 = .int(($0?.intValue ?? 0) + 1) }   // atomic across processes
/// ```
///
/// `set(settings.integer(forKey: "n") + 1, forKey: "n")` is **not** atomic across processes: another
/// process can write between the get and the set, and one increment is lost. Use `update(forKey:_:)`.
///
/// Unlike `UserDefaults`, setters throw: a write that did not reach the disk is an error the caller sees.
/// A file that is not a valid property list is never overwritten: writes throw `.corrupt` and reads keep
/// the last good values (the error is in `lastLoadError`).
public final class DefaultsSuite: Sendable {
    /// The suite's name, which is also its file name without `.plist`.
    public let suiteName: String
    /// The suite's file (for a suite in a `MemoryFolder`, `/<folder name>/<suite>.plist`).
    public let url: URL
    /// How long a write waits for another writer's lock.
    public let lockTimeout: Duration
    /// The format a new file is written in (`.binary` unless chosen otherwise); an existing file
    /// keeps its own.
    public let newFileFormat: PlistFormat

    /// The suite's file, its lock, cache and change deliveries.
    let document: PlistDocument<Contents>
    private let state: Mutex<State>

    /// What the suite's file holds.
    struct Contents: Sendable {
        var values: PlistDictionary
        /// The file's format (`newFileFormat` when there is no file).
        var format: PlistFormat
    }

    struct State {
        var stored = PlistDictionary()
        var registered: [String: PlistValue] = [:]
        var seenToken: UInt64 = .max
        var lastLoadError: FileStorageError?
        /// Writes refused because the file does not read (`recordLoadFailure`): a refresh that read
        /// before one of them must not clear the error it recorded.
        var refusedWrites: UInt64 = 0
        /// The format of the file as last read or written.
        var fileFormat: PlistFormat
        var observers: [UInt64: @Sendable (String) -> Void] = [:]
        /// What ends each `changes()` stream when the suite is released.
        var finishers: [UInt64: @Sendable () -> Void] = [:]
        var nextObserver: UInt64 = 0
        var delivery: ChangeSubscription?
        /// Writes of this suite that have reached the file, counted as each returns from the file.
        /// What a reader read before the count moved may be older than that write: it must not be
        /// stored over the write's values (the write's token may not have moved yet, so they would
        /// be served as current).
        var finishedWrites: UInt64 = 0
    }

    /// Opens the suite `suiteName` in the preferences folder of `directories`.
    public convenience init(suiteName: String, directories: AppDirectories = AppDirectories(appName: DefaultsSuite.programName),
                            lockTimeout: Duration = FileLock.defaultTimeout, newFileFormat: PlistFormat = .binary) {
        self.init(suiteName: suiteName, folder: directories.preferences, lockTimeout: lockTimeout, newFileFormat: newFileFormat)
    }

    /// Opens the suite `suiteName` in `folder`; programs that pass the same folder share the suite.
    ///
    /// ```swift
    /// let shared = DefaultsSuite(suiteName: "group.example", folder: URL(fileURLWithPath: "/srv/example/prefs"))
    /// ```
    ///
    /// - Parameters:
    ///   - suiteName: The suite's name: the file is `<suiteName>.plist` (a `/` in it becomes `_`).
    ///   - folder: The folder of the file, created by the first write.
    ///   - lockTimeout: How long a write waits for another writer's lock before throwing `.lockTimeout`.
    ///   - newFileFormat: The format of the file when this suite creates it: `.binary`, as
    ///   Apple's preferences, or `.xml` to keep it readable in an editor. A file that exists keeps its
    ///   format. `.openStep` is read-only and counts as `.xml`.
    public convenience init(suiteName: String, folder: URL, lockTimeout: Duration = FileLock.defaultTimeout,
                            newFileFormat: PlistFormat = .binary) {
        self.init(suiteName: suiteName, storage: .folder(folder), lockTimeout: lockTimeout, newFileFormat: newFileFormat)
    }

    /// Opens the suite `suiteName` in `storage`: a folder on disk (`.preferences` of the program,
    /// `.folder(url)`) or a `MemoryFolder` (`.memory(folder)`, for tests that need no disk).
    /// Opening a suite creates nothing: the folder is made by the first write.
    public init(suiteName: String, storage: StorageFolder, lockTimeout: Duration = FileLock.defaultTimeout,
                newFileFormat: PlistFormat = .binary) {
        self.suiteName = suiteName
        let format = newFileFormat == .openStep ? .xml : newFileFormat
        self.newFileFormat = format
        self.lockTimeout = lockTimeout
        document = PlistDocument(fileName: AppDirectories.safeComponent(suiteName) + ".plist", in: storage,
                                 lockTimeout: lockTimeout, coding: Self.coding(newFileFormat: format))
        url = document.url
        state = Mutex(State(fileFormat: format))
    }

    deinit {
        // Nothing will be published any more: end every stream.
        let finishers = state.withLock { s in
            s.delivery?.cancel()
            return Array(s.finishers.values)
        }
        finishers.forEach { $0() }
    }

    /// The program's name, which names the standard suite.
    public static var programName: String { AppDirectories.programName }

    /// The suite named after the program, in its preferences folder (`PERSISTENCE_TOOLKIT_ROOT` applies).
    public static let standard = DefaultsSuite(suiteName: programName)

    /// The format of the suite's file as last read or written (`newFileFormat` before there is one).
    public var fileFormat: PlistFormat { state.withLock { $0.fileFormat } }

    /// Why the last reload failed, if it did (the suite then serves its last good values).
    public var lastLoadError: FileStorageError? { state.withLock { $0.lastLoadError } }

    // MARK: Reading

    /// The value for `key`: the stored one, else the registered default.
    public func object(forKey key: String) -> PlistValue? {
        // The hot path: one atomic load and one lock while the file is unchanged.
        let token = document.changeToken
        if let hit = state.withLock({ s -> PlistValue?? in s.seenToken == token ? .some(s.stored[key] ?? s.registered[key]) : nil }) {
            return hit
        }
        refreshIfChanged()
        return state.withLock { $0.stored[key] ?? $0.registered[key] }
    }

    /// Every key and value, registered defaults included (stored values win).
    public func dictionaryRepresentation() -> [String: PlistValue] {
        refreshIfChanged()
        return state.withLock { s in
            var all = s.registered
            for (k, v) in s.stored { all[k] = v }
            return all
        }
    }

    /// Sets values returned for keys that have none stored. Not written to the file.
    public func register(defaults: [String: PlistValue]) {
        state.withLock { s in s.registered.merge(defaults) { _, new in new } }
    }

    /// Re-reads the file now, whatever the monitor says.
    ///
    /// - Throws: `.corrupt` (the last good values are kept) or another `FileStorageError`.
    public func reload() throws(FileStorageError) {
        try refresh(force: true)
    }

    // MARK: Writing

    /// Stores `value` for `key` (or removes the key when `nil`), durably, merging into the newest file.
    ///
    /// ```swift
    /// try suite.set(.dictionary(["width": .int(800), "height": .int(600)]), forKey: "window")
    /// ```
    ///
    /// - Throws: `FileStorageError`, and nothing is written: `.lockTimeout` when another writer held the
    ///   lock past ``lockTimeout``, `.corrupt` when the file is not a valid property list (it is never
    ///   overwritten), `.permissionDenied`, `.diskFull`, `.symlinkOutsideFolder` or `.io` from the
    ///   durable write.
    public func set(_ value: PlistValue?, forKey key: String) throws {
        try mutate { $0[key] = value }
    }

    /// Removes the stored value for `key`; the registered default, if any, shows through again.
    ///
    /// - Throws: `FileStorageError`, as ``update(forKey:_:)``.
    public func removeObject(forKey key: String) throws {
        try set(nil, forKey: key)
    }

    /// Atomically reads, changes and writes the value for `key` under the exclusive lock, so no other
    /// thread or process can write in between. `body` sees `nil` when the key is not stored.
    ///
    /// ```swift
    /// try suite.update(forKey: "launches") { $0 = .int(($0?.intValue ?? 0) + 1) }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - body: Changes the value; setting it to `nil` removes the key. Keep it short: the file is
    ///     locked meanwhile.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, or a `FileStorageError`; nothing is written either way.
    ///   `.lockTimeout` when another writer held the lock past ``lockTimeout``, `.corrupt` when the
    ///   file is not a valid property list (it is never overwritten), `.nestedUpdate` when called
    ///   inside another `update` of the same suite, `.permissionDenied`, `.diskFull`,
    ///   `.symlinkOutsideFolder` or `.io` from the durable write.
    @discardableResult
    public func update<R>(forKey key: String, _ body: (inout PlistValue?) throws -> R) throws -> R {
        try mutate { dict in
            var value = dict[key]
            let result = try body(&value)
            dict[key] = value
            return result
        }
    }

    /// Changes many keys in one locked read-merge-write.
    ///
    /// ```swift
    /// try suite.updateAll { values in
    ///     values["width"] = .int(800)
    ///     values["height"] = .int(600)
    /// }
    /// ```
    ///
    /// - Throws: What `body` threw, or a `FileStorageError` as ``update(forKey:_:)``; nothing is written.
    @discardableResult
    public func updateAll<R>(_ body: (inout PlistDictionary) throws -> R) throws -> R {
        try mutate(body)
    }

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

    // MARK: Internals

    /// How many observers and streams are subscribed (for tests).
    var observerCount: Int { state.withLock { $0.observers.count } }

    private func refreshIfChanged() {
        try? refresh(force: false)
    }

    /// Reads the file when its token moved (or always, when `force`), and tells observers which keys changed.
    ///
    /// What it read is dropped when one of this suite's writes finished meanwhile: the read may be
    /// older than that write, whose own store holds what the file had after it.
    private func refresh(force: Bool) throws(FileStorageError) {
        let token = document.changeToken
        guard let (writes, refused) = state.withLock({ s -> (UInt64, UInt64)? in
            force || s.seenToken != token ? (s.finishedWrites, s.refusedWrites) : nil
        }) else { return }
        let contents: Contents
        do {
            contents = force ? try document.readFresh() : try document.read()
        } catch {
            state.withLock { s in
                guard s.finishedWrites == writes else { return }
                s.seenToken = token
                s.lastLoadError = error
            }
            throw error
        }
        let told = state.withLock { s -> ([String], [@Sendable (String) -> Void]) in
            // A write refused meanwhile found the file damaged: this read may be older than that.
            guard s.finishedWrites == writes, s.refusedWrites == refused else { return ([], []) }
            s.seenToken = token
            s.lastLoadError = nil
            s.fileFormat = contents.format
            return replaceStored(with: contents.values, &s)
        }
        tell(told)
    }

    private func mutate<R>(_ change: (inout PlistDictionary) throws -> R) throws -> R {
        var result: R?
        let contents: Contents
        do {
            contents = try document.update { contents -> Contents in
                result = try change(&contents.values)
                return contents
            }
        } catch {
            recordLoadFailure(error)
            throw error
        }
        finishWrite(contents)
        return result!
    }

    /// A write refused because the file does not read (`.corrupt`) says why in ``lastLoadError`` at
    /// once, whether or not a refresh read the damaged file first (without this, a set straight after
    /// the damage left it `nil` unless the change thread had refreshed in between).
    private func recordLoadFailure(_ error: any Error) {
        guard let error = error as? FileStorageError, case .corrupt = error else { return }
        state.withLock { s in
            s.lastLoadError = error
            s.refusedWrites += 1
        }
    }

    /// The same, waiting for the lock with `Task.sleep`: never holds a cooperative-pool thread.
    func mutate<R>(_ change: (inout PlistDictionary) throws -> R) async throws -> R {
        var result: R?
        let contents: Contents
        do {
            contents = try await document.update { contents -> Contents in
                result = try change(&contents.values)
                return contents
            }
        } catch {
            recordLoadFailure(error)
            throw error
        }
        finishWrite(contents)
        return result!
    }

    /// Serves what the file now holds, and tells observers.
    private func finishWrite(_ written: Contents) {
        // The document's cache holds what the file says (an XML file keeps dates to the second).
        // The token is taken before the read and stored with what was read, as `refresh` does: if
        // another process's write is refreshed in between, this store of older values carries the
        // older token, so the next read sees the token moved and reads again, instead of serving
        // the older values as current.
        let writes = state.withLock { s in
            s.finishedWrites += 1
            return s.finishedWrites
        }
        let token = document.changeToken
        let contents = (try? document.read()) ?? written
        let told = state.withLock { s -> ([String], [@Sendable (String) -> Void]) in
            // Another write finished since this one: its store is at least as new as this read.
            guard s.finishedWrites == writes else { return ([], []) }
            s.seenToken = token
            s.fileFormat = contents.format
            s.lastLoadError = nil
            return replaceStored(with: contents.values, &s)
        }
        tell(told)
    }

    /// Makes `new` the stored values; returns the changed keys and who to tell (outside the lock).
    private func replaceStored(with new: PlistDictionary, _ s: inout State) -> ([String], [@Sendable (String) -> Void]) {
        let old = s.stored
        s.stored = new
        guard !s.observers.isEmpty, !old.hasSameContents(as: new) else { return ([], []) }
        var changed: [String] = []
        for (k, v) in new where !(old[k].map { $0.hasSameContents(as: v) } ?? false) { changed.append(k) }
        for k in old.keys where new[k] == nil { changed.append(k) }
        return (changed, Array(s.observers.values))
    }

    private func tell(_ told: ([String], [@Sendable (String) -> Void])) {
        for key in told.0 { for handler in told.1 { handler(key) } }
    }

    /// The suite file's coding: a dictionary property list, its keys written sorted, in the format
    /// the file already has; equal contents are not rewritten.
    static func coding(newFileFormat: PlistFormat) -> PlistDocument<Contents>.Coding {
        PlistDocument<Contents>.Coding(
            empty: { Contents(values: PlistDictionary(), format: newFileFormat) },
            decode: { data in
                let value = try PlistValue(parsing: data)
                guard case .dictionary(let dict) = value else {
                    throw PlistError(.malformed, "the top-level object is a \(value.kindName), not a dict")
                }
                // OpenStep text can be read but not written: such a file is rewritten as XML, still text.
                let format = PlistFormat.detect(data)
                return Contents(values: dict, format: format == .openStep ? .xml : format)
            },
            encode: { new, old in
                // Key order is not a change: an encoded Codable value lists its keys in declaration
                // order, the file in sorted order, and rewriting it for that would tell every observer.
                guard !new.values.hasSameContents(as: old.values) else { return nil }
                var sorted = new.values
                sorted.sortKeys()
                return try PlistValue.dictionary(sorted).serialized(as: old.format)
            },
            written: { data, contents in
                guard contents.format != .binary, case .dictionary(let written)? = try? PlistValue(parsing: data) else {
                    return contents
                }
                return Contents(values: written, format: contents.format)
            })
    }
}
