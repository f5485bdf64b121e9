import Foundation
import FileStorageKit
import Synchronization

/// Where persisted models keep their files: `<folder>/<document name>.storage.plist`.
///
/// By default the folder is the application-support folder of `AppDirectories(appName:)` for the
/// program's name (on Linux `~/.local/share/<program>`; `PERSISTENCE_TOOLKIT_ROOT` moves it under
/// one root). Code that wants another folder, such as a test, binds `folder` for a scope, without
/// touching any process-wide setting:
///
/// ```swift
/// PersistenceLocation.$folder.withValue(temporaryFolder) {
///     let settings = Settings()        // stores in temporaryFolder/Settings.storage.plist
///     settings.launches += 1
///     _ = Settings.isPersisted         // static members read the binding when called
/// }
/// ```
///
/// An instance reads the location once, the first time one of its properties is used, and keeps it
/// for life, even after the binding's scope ends. Static members (`url`, `isPersisted`, `delete()`)
/// read it each time they are called.
public enum PersistenceLocation {
    /// The folder for models used in this task (and its child tasks), or `nil` for the default.
    @TaskLocal public static var folder: URL?

    /// Where models used in this task keep their files, when bound: wins over `folder`. Bind
    /// `.memory(MemoryFolder())` for tests that need no disk.
    @TaskLocal public static var storage: StorageFolder?

    /// The folder for every model in the process when no task-local binding applies, or `nil` for the
    /// application-support folder. Set it once at launch, before any model is used (an instance keeps
    /// the folder it found on first use):
    ///
    /// ```swift
    /// // An app moving from DocumentData keeps reading its users' files:
    /// PersistenceLocation.processFolder = PersistenceLocation.documentDataFolder
    /// ```
    public static var processFolder: URL? {
        get { processWideFolder.withLock { $0 } }
        set { processWideFolder.withLock { $0 = newValue } }
    }

    /// The folder DocumentData keeps its files in: `Library/Application Support` in the home directory
    /// (on Apple platforms the app's container), with no subfolder for the app. On Linux this is
    /// `$HOME/Library/Application Support`, where DocumentData built for Linux would write.
    public static var documentDataFolder: URL {
        #if os(Linux)
        // Foundation's `NSHomeDirectory()` on Linux reads the password database, not `HOME`.
        let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        #else
        let home = NSHomeDirectory()
        #endif
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent("Library", isDirectory: true)
            .appendingPathComponent("Application Support", isDirectory: true)
    }

    /// The storage in effect here: `storage`, else `folder`, else `processFolder`, else the
    /// application-support folder.
    public static var currentStorage: StorageFolder {
        storage ?? (folder ?? processFolder).map { StorageFolder.folder($0) } ?? .applicationSupport
    }

    /// The default folder: application support for the program's name.
    public static var defaultFolder: URL {
        AppDirectories(appName: ProcessInfo.processInfo.processName).applicationSupport
    }

    /// The folder in effect here: `folder` when bound, else `processFolder`, else `defaultFolder`.
    public static var currentFolder: URL { currentStorage.url() }

    /// The file of the document `name` in the folder in effect here.
    public static func url(forDocument name: String) -> URL {
        currentFolder.appendingPathComponent(fileName(forDocument: name), isDirectory: false).standardizedFileURL
    }

    /// `<name>.storage.plist`; `/` and NUL become `_` (the macro already refuses such names).
    /// (Public for tests that look into a `MemoryFolder`.)
    public static func fileName(forDocument name: String) -> String {
        let safe = name.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\0", with: "_")
        return (safe.isEmpty ? "Model" : safe) + ".storage.plist"
    }
}

/// `PersistenceLocation.processFolder`'s value.
private let processWideFolder = Mutex<URL?>(nil)
