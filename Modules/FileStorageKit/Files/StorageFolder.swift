import Foundation

/// Where a store keeps its files: one of the app's standard folders, a folder of your own, or a
/// `MemoryFolder`. Every file-backed store takes one (CollectionStore's `PersistenceDirectory` is
/// this type under its tutorial's name).
///
/// ```swift
/// DataPersistence<Card>(filename: "cards.plist", directory: .documents)     // ~/Documents/<app>/
/// DefaultsSuite(suiteName: "app", storage: .folder(testFolder))
/// DefaultsSuite(suiteName: "app", storage: .memory(MemoryFolder()))        // no disk at all
/// ```
public struct StorageFolder: Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable {
        case documents, caches, applicationSupport, preferences
        case folder(URL)
        case memory(MemoryFolder)
    }

    let kind: Kind

    /// The app's documents folder (`AppDirectories.documents`).
    public static let documents = StorageFolder(kind: .documents)
    /// The app's caches folder (`AppDirectories.caches`).
    public static let caches = StorageFolder(kind: .caches)
    /// The app's application-support folder (`AppDirectories.applicationSupport`).
    public static let applicationSupport = StorageFolder(kind: .applicationSupport)
    /// The app's preferences folder (`AppDirectories.preferences`).
    public static let preferences = StorageFolder(kind: .preferences)

    /// A folder of your own (a test's temporary folder, a `--folder` option).
    public static func folder(_ url: URL) -> StorageFolder {
        StorageFolder(kind: .folder(url.standardizedFileURL))
    }

    /// A folder in memory: the same semantics, no disk (see `MemoryFolder`).
    public static func memory(_ folder: MemoryFolder) -> StorageFolder {
        StorageFolder(kind: .memory(folder))
    }

    /// Whether the files live in a `MemoryFolder`.
    public var isMemory: Bool {
        if case .memory = kind { return true }
        return false
    }

    /// The folder's URL for the app `appName` (for a memory folder, `/<its name>`).
    public func url(appName: String = AppDirectories.programName) -> URL {
        switch kind {
        case .documents: return AppDirectories(appName: appName).documents
        case .caches: return AppDirectories(appName: appName).caches
        case .applicationSupport: return AppDirectories(appName: appName).applicationSupport
        case .preferences: return AppDirectories(appName: appName).preferences
        case .folder(let url): return url
        case .memory(let folder): return URL(fileURLWithPath: "/\(folder.name)")
        }
    }

    /// Whether the file `fileName` exists in this folder (for the app `appName`).
    public func fileExists(_ fileName: String, appName: String = AppDirectories.programName) -> Bool {
        if case .memory(let folder) = kind { return folder.contents(of: fileName) != nil }
        return FileManager.default.fileExists(atPath: url(appName: appName).appendingPathComponent(fileName).path)
    }

    public var description: String {
        switch kind {
        case .documents: return "documents"
        case .caches: return "caches"
        case .applicationSupport: return "applicationSupport"
        case .preferences: return "preferences"
        case .folder(let url): return url.path
        case .memory(let folder): return folder.description
        }
    }

    public static func == (lhs: StorageFolder, rhs: StorageFolder) -> Bool {
        switch (lhs.kind, rhs.kind) {
        case (.documents, .documents), (.caches, .caches), (.applicationSupport, .applicationSupport),
             (.preferences, .preferences):
            return true
        case (.folder(let a), .folder(let b)): return a == b
        case (.memory(let a), .memory(let b)): return a === b
        default: return false
        }
    }
}

extension AppDirectories {
    /// The program's name, which names its folders by default.
    public static var programName: String { ProcessInfo.processInfo.processName }
}
