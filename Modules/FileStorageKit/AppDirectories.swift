import Foundation

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

    /// Creates `folder` and any missing parents; new folders get mode 0700, existing ones are left as they are.
    ///
    /// Each new folder's parent is flushed (`fsync`) after the `mkdir`, so the folder outlives a power
    /// cut: a file made durable in it (whose own folder a write flushes) is otherwise lost with the
    /// folder's name (issue 34: a `DefaultsSuite`'s first write into a new folder lost every value).
    ///
    /// ```swift
    /// try AppDirectories.createFolder(folder.appendingPathComponent("exports/2026"))
    /// ```
    ///
    /// - Throws: `FileStorageError`: `.permissionDenied` (a read-only parent), `.diskFull`, `.io` for
    ///   another `mkdir` or `fsync` failure (a file in the way, say), naming the folder that failed.
    public static func createFolder(_ folder: URL) throws(FileStorageError) {
        var missing: [URL] = []
        var current = folder.standardizedFileURL
        while !FileManager.default.fileExists(atPath: current.path) {
            missing.append(current)
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path { break }
            current = parent
        }
        for dir in missing.reversed() {
            if mkdir(dir.path, 0o700) != 0 && errno != EEXIST {
                throw FileStorageError.from(errno: errno, operation: "mkdir", url: dir)
            }
            // Also after EEXIST: another process's mkdir may not be flushed yet.
            try DurableFile.syncFolder(dir.deletingLastPathComponent(), url: dir)
        }
    }
}
