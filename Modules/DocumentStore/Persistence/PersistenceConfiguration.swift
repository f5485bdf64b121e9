import Foundation
import FileStorageKit
import SQLiteSupport

/// Where a document store lives and how it trades speed for durability.
///
/// ```swift
/// var configuration = PersistenceConfiguration(name: "Shapes", appName: "shapes")
/// configuration.revisionHistoryLimit = 50
/// let persistence = try Persistence(configuration: configuration)
/// ```
public struct PersistenceConfiguration: Sendable {
    /// How much a commit waits for the disk.
    public enum Durability: Sendable {
        /// `PRAGMA synchronous = FULL` (the default): a save returns after the write-ahead log reached
        /// the disk, so it survives a killed process and a power loss.
        case full
        /// `PRAGMA synchronous = NORMAL`: survives a killed process; a power loss can lose the last saves.
        case normal
    }

    /// The database file.
    public var url: URL
    /// What a commit survives; `.full` by default.
    public var durability: Durability = .full
    /// How long a save waits for another process's write lock before ``DocumentStoreError/busyTimeout(file:seconds:)``.
    /// Opening waits as long for processes that create or open the same file at that moment.
    public var busyTimeout: Duration = .seconds(10)
    /// How many generations each document's revision tree keeps below its newest leaf (at least 1;
    /// 1,000 by default, CouchDB's `revs_limit`). Older revision records are pruned, leaves included:
    /// a branch that far behind is superseded, never kept as a conflict. The change feed keeps every
    /// entry. Replicas of one DocumentSync server should use the same limit as the server.
    public var revisionHistoryLimit = 1000
    /// How often live queries look for commits made by other processes (`PRAGMA data_version` on a
    /// connection of their own). Commits made through this `Persistence` are seen at once.
    public var otherProcessPollInterval: Duration = .milliseconds(50)
    /// The size, in bytes, the write-ahead log (`<name>.sqlite-wal`) is kept near: after a save that
    /// leaves it larger, a `TRUNCATE` checkpoint resets it, waiting within the busy timeout for readers
    /// of older snapshots (another process reading in a loop would otherwise keep it growing).
    /// 4 MB by default, as ManagedStorage's.
    public var walSizeLimit = 4 << 20
    /// How long opening waits for another process that is moving a damaged store aside (and, when
    /// this one finds it damaged, for the other processes that have it open to close it).
    public var recoveryLockTimeout: Duration = .seconds(10)
    /// Whether opening runs `PRAGMA quick_check`, so a damaged file is reported at open instead of at
    /// the first read of a damaged page. On by default; it reads every page once.
    public var checksIntegrityAtOpen = true

    /// A store in the file `url`.
    public init(url: URL) {
        self.url = url
    }

    /// A store named `name` (the file `<name>.sqlite`) in the application-support folder of
    /// `appName` (`name` when `nil`), resolved by `AppDirectories`.
    public init(name: String, appName: String? = nil, directories: AppDirectories? = nil) {
        let folder = (directories ?? AppDirectories(appName: appName ?? name)).applicationSupport
        url = folder.appendingPathComponent("\(AppDirectories.safeComponent(name)).sqlite")
    }
}

extension PersistenceConfiguration {
    /// The options SQLiteSupport opens the store with.
    var sqliteOptions: SQLiteStoreOptions {
        SQLiteStoreOptions(durability: durability == .full ? .full : .normal, busyTimeout: busyTimeout,
                           checksIntegrityAtOpen: checksIntegrityAtOpen, walSizeLimit: walSizeLimit,
                           pollInterval: otherProcessPollInterval)
    }
}
