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
    let state: Mutex<State>

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
}
