import FileStorageKit
import Foundation

/// Where `.userDefaults` nodes keep their suites, and which suite `.userDefaults(key:)` means.
///
/// A suite `name` is the file `<folder>/<name>.plist` (a FileStorageKit `DefaultsSuite`). By default
/// the folder is the preferences folder of `AppDirectories(appName:)` for the program's name, and
/// `.userDefaults(key:)` uses the suite named after the program, as `UserDefaults.standard` does.
/// Code that wants another place, such as a test or a tool given `--folder`, binds the task-locals
/// for a scope, without touching anything process-wide:
///
/// ```swift
/// GraphStorageLocation.$folder.withValue(testFolder) {
///     let model = AppConfigurationModel()     // its suites live in testFolder
/// }
/// ```
///
/// A node reads the location once, when it is created (for `@GraphStored`, when the model is), and
/// keeps it for life.
public enum GraphStorageLocation {
    /// The folder of the suites for nodes created in this task, or `nil` for `defaultFolder`.
    @TaskLocal public static var folder: URL?

    /// The suite `.userDefaults(key:)` uses in this task, or `nil` for the program's name.
    @TaskLocal public static var standardSuiteName: String?

    /// The preferences folder of the program (`PERSISTENCE_TOOLKIT_ROOT` applies).
    public static var defaultFolder: URL {
        AppDirectories(appName: ProcessInfo.processInfo.processName).preferences
    }

    /// Where nodes created in this task keep their suites, when bound: wins over `folder`. Bind
    /// `.memory(MemoryFolder())` for tests that need no disk.
    @TaskLocal public static var storage: StorageFolder?

    /// The storage in effect here: `storage`, else `folder`, else the preferences folder.
    public static var currentStorage: StorageFolder {
        storage ?? folder.map { StorageFolder.folder($0) } ?? .preferences
    }

    /// The folder in effect here.
    public static var currentFolder: URL { currentStorage.url() }

    /// The standard suite's name in effect here.
    public static var currentStandardSuiteName: String {
        standardSuiteName ?? ProcessInfo.processInfo.processName
    }
}
