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
    /// The suite's file.
    public let url: URL
    /// How long a write waits for another writer's lock.
    public let lockTimeout: Duration
    /// The format a new file is written in (`.binary` unless chosen otherwise); an existing file
    /// keeps its own.
    public let newFileFormat: PlistFormat

    /// Replaced once, when the first write creates a folder that did not exist (inotify needs it).
    private let monitorBox: Mutex<FileChangeMonitor>
    private var monitor: FileChangeMonitor { monitorBox.withLock { $0 } }
    private let state: Mutex<State>

    struct State {
        var stored = PlistDictionary()
        var registered: [String: PlistValue] = [:]
        var seenToken: UInt64 = .max
        var lastLoadError: FileStorageError?
        /// The format of the file as last read or written.
        var fileFormat: PlistFormat
        var observers: [UInt64: AsyncStream<String>.Continuation] = [:]
        var nextObserver: UInt64 = 0
    }

    /// Opens the suite `suiteName` in the preferences folder of `directories`.
    public convenience init(suiteName: String, directories: AppDirectories = AppDirectories(appName: DefaultsSuite.programName),
                            lockTimeout: Duration = FileLock.defaultTimeout, newFileFormat: PlistFormat = .binary) {
        self.init(suiteName: suiteName, folder: directories.preferences, lockTimeout: lockTimeout, newFileFormat: newFileFormat)
    }

    /// Opens the suite `suiteName` in `folder`; programs that pass the same folder share the suite.
    ///
    /// - Parameter newFileFormat: The format of the file when this suite creates it: `.binary`, as
    ///   Apple's preferences, or `.xml` to keep it readable in an editor. A file that exists keeps its
    ///   format. `.openStep` is read-only and counts as `.xml`.
    public init(suiteName: String, folder: URL, lockTimeout: Duration = FileLock.defaultTimeout,
                newFileFormat: PlistFormat = .binary) {
        self.suiteName = suiteName
        self.newFileFormat = newFileFormat == .openStep ? .xml : newFileFormat
        url = folder.appendingPathComponent(AppDirectories.safeComponent(suiteName) + ".plist").standardizedFileURL
        self.lockTimeout = lockTimeout
        // Opening a suite creates nothing: the folder is made by the first write. Until the folder exists
        // the monitor polls (inotify needs a folder to watch); the first write upgrades it.
        monitorBox = Mutex(FileChangeMonitor(url: url))
        state = Mutex(State(fileFormat: self.newFileFormat))
    }

    deinit {
        // End every observer's stream: nothing will be published any more.
        state.withLock { s in s.observers.values.forEach { $0.finish() } }
    }

    /// The program's name, which names the standard suite.
    public static var programName: String { ProcessInfo.processInfo.processName }

    /// The suite named after the program, in its preferences folder (`PERSISTENCE_TOOLKIT_ROOT` applies).
    public static let standard = DefaultsSuite(suiteName: programName)

    /// The format of the suite's file as last read or written (`newFileFormat` before there is one).
    public var fileFormat: PlistFormat { state.withLock { $0.fileFormat } }

    /// Why the last reload failed, if it did (the suite then serves its last good values).
    public var lastLoadError: FileStorageError? { state.withLock { $0.lastLoadError } }

    // MARK: Reading

    /// The value for `key`: the stored one, else the registered default.
    public func object(forKey key: String) -> PlistValue? {
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
        let token = monitor.changeToken
        try state.withLock { (s: inout State) throws(FileStorageError) in try load(&s, token: token) }
    }

    // MARK: Writing

    /// Stores `value` for `key` (or removes the key when `nil`), durably, merging into the newest file.
    public func set(_ value: PlistValue?, forKey key: String) throws {
        try mutate { $0[key] = value }
    }

    /// Removes the stored value for `key`; the registered default, if any, shows through again.
    public func removeObject(forKey key: String) throws {
        try set(nil, forKey: key)
    }

    /// Atomically reads, changes and writes the value for `key` under the exclusive lock, so no other
    /// thread or process can write in between. `body` sees `nil` when the key is not stored.
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
    @discardableResult
    public func updateAll<R>(_ body: (inout PlistDictionary) throws -> R) throws -> R {
        try mutate(body)
    }

    // MARK: Observing

    /// The keys that change, by this process or another, from now until the stream is dropped.
    public func changes() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = state.withLock { s in
            let id = s.nextObserver
            s.nextObserver += 1
            s.observers[id] = continuation
            return id
        }
        // Another process's writes arrive as change tokens; poll the token (one atomic load with
        // inotify) so observers hear of them without anyone calling a getter.
        let watcher = Task.detached { [weak self] in
            while !Task.isCancelled {
                // No strong reference survives the pause, so the suite can be released (which ends the stream).
                guard self?.refreshIfChanged() != nil else { return }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        continuation.onTermination = { [weak self] _ in
            watcher.cancel()
            _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: Internals

    private func refreshIfChanged() {
        let token = monitor.changeToken
        state.withLock { s in
            guard token != s.seenToken else { return }
            try? load(&s, token: token)
        }
    }

    /// Loads the file into `s`, telling observers which keys changed.
    private func load(_ s: inout State, token: UInt64) throws(FileStorageError) {
        s.seenToken = token
        do {
            let (fresh, format) = try readFile()
            s.fileFormat = format
            s.lastLoadError = nil
            publish(old: s.stored, new: fresh, &s)
        } catch {
            s.lastLoadError = error
            throw error
        }
    }

    /// The file's contents and format: empty and `newFileFormat` when it does not exist; `.corrupt`
    /// when it is not a dictionary plist.
    private func readFile() throws(FileStorageError) -> (PlistDictionary, PlistFormat) {
        guard let data = try DurableFile.readIfPresent(url) else { return (PlistDictionary(), newFileFormat) }
        let value: PlistValue
        do {
            value = try PlistValue(parsing: data)
        } catch let error as PlistError {
            throw .corrupt(url, error)
        } catch {
            throw .io(url, operation: "parse", errno: 0)
        }
        guard case .dictionary(let dict) = value else {
            throw .corrupt(url, PlistError(.malformed, "the top-level object is a \(value.kindName), not a dict"))
        }
        // OpenStep text can be read but not written: such a file is rewritten as XML, still text.
        let format = PlistFormat.detect(data)
        return (dict, format == .openStep ? .xml : format)
    }

    private func mutate<R>(_ change: (inout PlistDictionary) throws -> R) throws -> R {
        try prepareForWrite()
        return try FileLock.withExclusiveLock(for: url, timeout: lockTimeout) { try mutateLocked(change) }
    }

    /// The same, waiting for the lock with `Task.sleep`: never holds a cooperative-pool thread.
    func mutate<R>(_ change: (inout PlistDictionary) throws -> R) async throws -> R {
        try prepareForWrite()
        return try await FileLock.withExclusiveLock(for: url, timeout: lockTimeout) { () async throws -> R in
            try mutateLocked(change)
        }
    }

    /// Creates the folder on the first write, and switches the monitor to inotify once it can watch it.
    private func prepareForWrite() throws {
        try AppDirectories.createFolder(url.deletingLastPathComponent())
        let upgraded = monitorBox.withLock { current -> Bool in
            guard !current.usesInotify, InotifyHub.shared != nil else { return false }
            let replacement = FileChangeMonitor(url: url)
            guard replacement.usesInotify else { return false }
            current = replacement
            return true
        }
        // A new monitor counts from zero: forget the old token so the next read cannot mistake it.
        if upgraded { state.withLock { $0.seenToken = .max } }
    }

    /// Read the newest file, apply `change`, write if anything changed; the caller holds the lock.
    private func mutateLocked<R>(_ change: (inout PlistDictionary) throws -> R) throws -> R {
        let (onDisk, format) = try readFile()
        var updated = onDisk
        let result = try change(&updated)
        // Key order is not a change: an encoded Codable value lists its keys in declaration order,
        // the file in sorted order, and rewriting it for that would notify every observer.
        if !updated.hasSameContents(as: onDisk) {
            updated.sortKeys()
            let data = try PlistValue.dictionary(updated).serialized(as: format)
            try DurableFile.write(data, to: url)
            // Serve what the file holds (an XML file keeps dates to the second), not what was passed in.
            if format != .binary, case .dictionary(let written)? = try? PlistValue(parsing: data) { updated = written }
        } else {
            updated = onDisk
        }
        state.withLock { s in
            s.fileFormat = format
            s.lastLoadError = nil
            publish(old: s.stored, new: updated, &s)
        }
        return result
    }

    private func publish(old: PlistDictionary, new: PlistDictionary, _ s: inout State) {
        s.stored = new
        guard !s.observers.isEmpty, !old.hasSameContents(as: new) else { return }
        var changed: [String] = []
        for (k, v) in new where !(old[k].map { $0.hasSameContents(as: v) } ?? false) { changed.append(k) }
        for k in old.keys where new[k] == nil { changed.append(k) }
        for key in changed { for c in s.observers.values { c.yield(key) } }
    }
}
