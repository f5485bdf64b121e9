import FileStorageKit
import Foundation

/// Which folder a `DataPersistence` file lives in.
///
/// The named folders come from FileStorageKit's `AppDirectories` for the app name, so on Linux they
/// follow XDG (`~/Documents/<app>`, `~/.cache/<app>`, `~/.local/share/<app>`), on Apple platforms the
/// usual `~/Documents` and `~/Library` folders, and `PERSISTENCE_TOOLKIT_ROOT` moves them all.
/// Tests and tools that want an exact place pass `.folder(url)`. Folders are created on first write.
public struct PersistenceDirectory: Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable, Equatable {
        case documents, caches, applicationSupport
        case folder(URL)
    }

    let kind: Kind

    /// User-visible documents (the original design's default).
    public static let documents = PersistenceDirectory(kind: .documents)
    /// Files that can be recreated.
    public static let caches = PersistenceDirectory(kind: .caches)
    /// The app's own data files.
    public static let applicationSupport = PersistenceDirectory(kind: .applicationSupport)

    /// Exactly this folder.
    public static func folder(_ url: URL) -> PersistenceDirectory {
        PersistenceDirectory(kind: .folder(url.standardizedFileURL))
    }

    /// The folder for `appName` (the process name by default).
    public func url(appName: String = ProcessInfo.processInfo.processName) -> URL {
        let directories = AppDirectories(appName: appName)
        switch kind {
        case .documents: return directories.documents
        case .caches: return directories.caches
        case .applicationSupport: return directories.applicationSupport
        case .folder(let url): return url
        }
    }

    public var description: String {
        switch kind {
        case .documents: return "documents"
        case .caches: return "caches"
        case .applicationSupport: return "applicationSupport"
        case .folder(let url): return url.path
        }
    }
}
