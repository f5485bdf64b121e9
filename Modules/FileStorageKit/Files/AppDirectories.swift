import Foundation
import Synchronization

/// The folders a named app keeps its files in, resolved for the platform, created on demand (mode 0700).
///
/// On Linux: application support in `$XDG_DATA_HOME/<app>` (default `~/.local/share/<app>`),
/// preferences in `$XDG_CONFIG_HOME/<app>` (`~/.config/<app>`), caches in `$XDG_CACHE_HOME/<app>`
/// (`~/.cache/<app>`) and documents in the `XDG_DOCUMENTS_DIR` of `~/.config/user-dirs.dirs`
/// (default `~/Documents`) plus `/<app>`. On Apple platforms: `~/Library/Application Support/<app>`,
/// `~/Library/Preferences`, `~/Library/Caches/<app>` and `~/Documents`.
///
/// Foundation's `FileManager.url(for:in:)` is not used: on Linux it ignores `$HOME` for documents,
/// adds no app folder and has no library folder.
///
/// One override puts everything under a single root, for tests and the tour: pass `root:` or set the
/// environment variable `PERSISTENCE_TOOLKIT_ROOT`. Under a root the folders are
/// `<root>/ApplicationSupport`, `<root>/Documents`, `<root>/Caches` and `<root>/Preferences`.
///
/// ```swift
/// let dirs = AppDirectories(appName: "Flashcards")
/// let url = try dirs.applicationSupport(creating: true).appendingPathComponent("decks.plist")
/// ```
public struct AppDirectories: Sendable, Equatable {
    /// The environment variable that roots every folder under one path.
    public static let rootEnvironmentVariable = "PERSISTENCE_TOOLKIT_ROOT"

    /// The app name used as a subfolder.
    public let appName: String
    /// Where the app's own data files go.
    public let applicationSupport: URL
    /// Where user-visible documents go.
    public let documents: URL
    /// Where files that can be recreated go.
    public let caches: URL
    /// Where preference suites (`DefaultsSuite`) go.
    public let preferences: URL

    /// Resolves the folders for `appName`.
    ///
    /// - Parameters:
    ///   - appName: The subfolder name; `/` and leading dots are replaced so it stays one component.
    ///   - root: Puts every folder under this path (overrides the environment).
    ///   - environment: The variables to resolve from; the process environment by default.
    public init(appName: String, root: URL? = nil,
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        let name = Self.safeComponent(appName)
        self.appName = name
        if let root = root ?? environment[Self.rootEnvironmentVariable].flatMap({ $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }) {
            applicationSupport = root.appendingPathComponent("ApplicationSupport", isDirectory: true)
            documents = root.appendingPathComponent("Documents", isDirectory: true)
            caches = root.appendingPathComponent("Caches", isDirectory: true)
            preferences = root.appendingPathComponent("Preferences", isDirectory: true)
            return
        }
        let home = URL(fileURLWithPath: environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory(), isDirectory: true)
        #if os(Linux) || os(Android) || os(FreeBSD) || os(OpenBSD)
        func xdg(_ variable: String, _ fallback: String) -> URL {
            if let v = environment[variable], v.hasPrefix("/") { return URL(fileURLWithPath: v, isDirectory: true) }
            return home.appendingPathComponent(fallback, isDirectory: true)
        }
        let config = xdg("XDG_CONFIG_HOME", ".config")
        applicationSupport = xdg("XDG_DATA_HOME", ".local/share").appendingPathComponent(name, isDirectory: true)
        preferences = config.appendingPathComponent(name, isDirectory: true)
        caches = xdg("XDG_CACHE_HOME", ".cache").appendingPathComponent(name, isDirectory: true)
        let userDirs = (try? String(contentsOf: config.appendingPathComponent("user-dirs.dirs"), encoding: .utf8)) ?? ""
        let docs = Self.userDir("XDG_DOCUMENTS_DIR", in: userDirs, home: home.path)
            ?? home.appendingPathComponent("Documents", isDirectory: true)
        documents = docs.appendingPathComponent(name, isDirectory: true)
        #else
        let library = home.appendingPathComponent("Library", isDirectory: true)
        applicationSupport = library.appendingPathComponent("Application Support/\(name)", isDirectory: true)
        preferences = library.appendingPathComponent("Preferences", isDirectory: true)
        caches = library.appendingPathComponent("Caches/\(name)", isDirectory: true)
        documents = home.appendingPathComponent("Documents", isDirectory: true)
        #endif
    }

    /// Reads `NAME="value"` from a `user-dirs.dirs` file, expanding a leading `$HOME`.
    static func userDir(_ name: String, in text: String, home: String) -> URL? {
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            guard !line.hasPrefix("#"), line.hasPrefix(name + "=") else { continue }
            var value = String(line.dropFirst(name.count + 1))
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            if value.hasPrefix("$HOME") {
                value = home + value.dropFirst("$HOME".count)
            } else if value.hasPrefix("${HOME}") {
                value = home + value.dropFirst("${HOME}".count)
            }
            guard value.hasPrefix("/") else { return nil }
            return URL(fileURLWithPath: value, isDirectory: true)
        }
        return nil
    }

    /// `name` as one safe path component: `/` and NUL become `_`, leading dots are dropped, and an
    /// empty result becomes `App`.
    public static func safeComponent(_ name: String) -> String {
        var s = name.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\0", with: "_")
        while s.hasPrefix(".") { s.removeFirst() }
        return s.isEmpty ? "App" : s
    }

    /// Application support, created (mode 0700) when `creating` is true.
    ///
    /// - Throws: With `creating`, the `FileStorageError` of ``createFolder(_:)``.
    public func applicationSupport(creating: Bool) throws(FileStorageError) -> URL {
        if creating { try Self.createFolder(applicationSupport) }
        return applicationSupport
    }

    /// Documents, created (mode 0700) when `creating` is true.
    ///
    /// - Throws: With `creating`, the `FileStorageError` of ``createFolder(_:)``.
    public func documents(creating: Bool) throws(FileStorageError) -> URL {
        if creating { try Self.createFolder(documents) }
        return documents
    }

    /// Caches, created (mode 0700) when `creating` is true.
    ///
    /// - Throws: With `creating`, the `FileStorageError` of ``createFolder(_:)``.
    public func caches(creating: Bool) throws(FileStorageError) -> URL {
        if creating { try Self.createFolder(caches) }
        return caches
    }

    /// Preferences, created (mode 0700) when `creating` is true.
    ///
    /// - Throws: With `creating`, the `FileStorageError` of ``createFolder(_:)``.
    public func preferences(creating: Bool) throws(FileStorageError) -> URL {
        if creating { try Self.createFolder(preferences) }
        return preferences
    }

    /// Creates `folder` and any missing parents; new folders get mode 0700, existing ones are left as
    /// they are. When it returns, the whole chain is durable: `folder` and every folder above it
    /// survive a power cut.
    ///
    /// - A folder it creates: its parent is flushed (`fsync`) after the `mkdir`, so the folder outlives
    ///   a power cut (issue 34: a `DefaultsSuite`'s first write into a new folder lost every value).
    /// - A folder that already exists is not trusted: another process may have made it and died
    ///   before its `fsync`, and a power cut would then take the folder, with every write acknowledged
    ///   in it since (issue 45). So the first call for a folder in a process flushes every existing
    ///   folder on its path up to the root (each folder's `fsync` makes the name of the one below it
    ///   durable), and along the path with symbolic links resolved. A folder on the path that cannot be
    ///   opened for reading (a permission-denied one high up) is skipped; there is nothing this process
    ///   could flush there.
    /// - Once per process and folder: the folders already flushed are remembered (with their device and
    ///   inode, so a folder removed and made again is flushed again), and a later call for the same
    ///   folder costs one `stat`. Every store calls it when it opens or first writes a folder:
    ///   `PlistFileStorage`, `DefaultsSuite` and `PlistDocument` (and so `DataPersistence`,
    ///   `@PersistedModel` and StateGraph's suite-backed nodes), ManagedStorage's `SQLiteStorageManager`
    ///   and DocumentStore's `Persistence`.
    ///
    /// ```swift
    /// try AppDirectories.createFolder(folder.appendingPathComponent("exports/2026"))
    /// ```
    ///
    /// - Throws: `FileStorageError`: `.permissionDenied` (a read-only parent), `.diskFull`, `.io` for
    ///   another `mkdir` or `fsync` failure (a file in the way, say), naming the folder that failed.
    public static func createFolder(_ folder: URL) throws(FileStorageError) {
        let target = folder.standardizedFileURL.path
        // The fast path: this folder (the same one, not another made at its name since) was made
        // durable by this process already.
        if let identity = DurableFolders.identity(ofDirectoryAt: target), DurableFolders.contains(target, identity) { return }
        var missing: [String] = []
        var current = target
        while DurableFolders.identity(ofEntryAt: current) == nil {
            missing.append(current)
            let parent = DurableFile.parentPath(of: current)
            if parent == current { break }
            current = parent
        }
        for dir in missing.reversed() {
            let url = URL(fileURLWithPath: dir, isDirectory: true)
            if mkdir(dir, 0o700) != 0 && errno != EEXIST {
                throw FileStorageError.from(errno: errno, operation: "mkdir", url: url)
            }
            // Also after EEXIST: another process's mkdir may not be flushed yet.
            try DurableFile.syncFolder(atPath: DurableFile.parentPath(of: dir), url: url)
        }
        // The folders that were there already, up to the root: made by whom, flushed when?
        try DurableFolders.flushChain(from: target, url: folder)
    }
}

/// The folders this process has made durable (`AppDirectories.createFolder`): each one's path, with
/// its device and inode when it was flushed.
enum DurableFolders {
    struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    private static let flushed = Mutex<[String: Identity]>([:])

    /// The device and inode of the directory at `path`, or `nil` when there is none (or it is no directory).
    static func identity(ofDirectoryAt path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Whether anything is at `path` (a file in the way counts: `mkdir` then reports it).
    static func identity(ofEntryAt path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    static func contains(_ path: String, _ identity: Identity) -> Bool {
        flushed.withLock { $0[path] == identity }
    }

    /// Flushes every existing folder from `path` up to the root, lexically and with symbolic links
    /// resolved, skipping those this process flushed already (and, since their chains were flushed
    /// with them, everything above them) and those it cannot open for reading; then remembers them.
    static func flushChain(from path: String, url: URL) throws(FileStorageError) {
        var chains = [path]
        if let resolved = realpath(path, nil) {
            chains.append(String(cString: resolved))
            free(resolved)
        }
        var done: [String: Identity] = [:]
        for start in chains {
            var current = start
            while true {
                if done[current] == nil, let identity = identity(ofDirectoryAt: current) {
                    if contains(current, identity) { break }
                    try flush(current, url: url)
                    done[current] = identity
                }
                let parent = DurableFile.parentPath(of: current)
                if parent == current { break }
                current = parent
            }
        }
        flushed.withLock { known in
            for (path, identity) in done { known[path] = identity }
        }
    }

    /// `fsync` of one folder: its entries, among them the name of the folder below it on the path.
    private static func flush(_ path: String, url: URL) throws(FileStorageError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        // Not readable (EACCES, EPERM), or gone meanwhile: nothing this process can flush there.
        guard fd >= 0 else { return }
        defer { close(fd) }
        while fsync(fd) != 0 {
            if errno == EINTR { continue }
            // EINVAL: a file system that refuses fsync on a folder; EROFS: nothing to flush.
            if errno == EINVAL || errno == EROFS { return }
            throw FileStorageError.io(url, operation: "fsync folder \(path)", errno: errno)
        }
    }
}
