import Foundation
import SQLiteSupport
import FileStorageKit

/// Where a store lives and how it trades speed for durability.
///
/// ```swift
/// let configuration = StorageConfiguration(name: "Orders", appName: "WooShop")
/// let manager = try SQLiteStorageManager(model: model, configuration: configuration)
/// ```
public struct StorageConfiguration: Sendable {
    /// How much a commit waits for the disk. See <doc:CorruptStoresAndDurability>.
    ///
    /// ```swift
    /// var configuration = StorageConfiguration(name: "Cache", appName: "WooShop")
    /// configuration.durability = .normal     // data that can be downloaded again
    /// ```
    public enum Durability: Sendable {
        /// `PRAGMA synchronous = FULL` (the default): a commit returns after the write-ahead log reached
        /// the disk. A committed transaction survives a killed process and a power loss.
        case full
        /// `PRAGMA synchronous = NORMAL`: the log is synced only at checkpoints. A committed transaction
        /// survives a killed process; a power loss can lose the last ones (never corrupts the store).
        case normal
    }

    /// What opening does with a store whose model this program cannot bring to its own. See
    /// <doc:ChangingTheModel>.
    ///
    /// ```swift
    /// var configuration = StorageConfiguration(name: "Cache", appName: "WooShop")
    /// configuration.incompatibleStore = .moveAsideAndStartEmpty   // WooCommerce's CoreDataManager
    /// ```
    public enum IncompatibleStorePolicy: Sendable {
        /// Throw the error (the default): the store is data of record, and the program must be fixed.
        case refuse
        /// Treat the store as a cache, as WooCommerce's `CoreDataManager` does: move it and its `-wal`
        /// and `-shm` files aside to `<name>.sqlite.incompatible-<time>` (never deleted), open a new,
        /// empty store, and report ``StorageError/incompatibleStoreMovedAside(file:movedTo:cause:)``
        /// (also in ``SQLiteStorageManager/movedAsideAtOpen``). Applies to a store written by a newer
        /// program, a failed migration, and tables that do not match the declarations; never to a busy,
        /// full or read-only disk.
        case moveAsideAndStartEmpty
    }

    /// The store's name: the file is `<name>.sqlite` in ``folder``.
    public var name: String
    /// The folder of the store file (created with mode 0700 when missing).
    public var folder: URL
    /// What a commit survives; `.full` by default.
    public var durability: Durability = .full
    /// How long a write waits for another process's write lock before failing with
    /// ``StorageError/busyTimeout(file:seconds:)``. Opening waits as long for processes that create
    /// or open the same file at that moment.
    public var busyTimeout: Duration = .seconds(10)
    /// How long recovery waits for other processes to close a corrupt store before giving up.
    public var recoveryLockTimeout: Duration = .seconds(10)
    /// The size the write-ahead log is truncated to after a checkpoint (`PRAGMA journal_size_limit`).
    public var walSizeLimit: Int = 4 << 20
    /// What opening does with a store this program's model cannot open: ``IncompatibleStorePolicy/refuse``
    /// (throw) by default.
    public var incompatibleStore: IncompatibleStorePolicy = .refuse
    /// How long opening waits for another process that is migrating the store (processes migrate one
    /// at a time; the next finds the store migrated). Past it, ``StorageError/cannotOpen(file:cause:)``.
    public var migrationLockTimeout: Duration = .seconds(600)
    /// Whether opening runs `PRAGMA quick_check`, so a damaged store is found (and moved aside) at open
    /// rather than on the first read of a damaged page. On by default; it reads every page once.
    public var checksIntegrityAtOpen = true
    /// How often live results (``ResultsController``, ``SQLiteStorageManager/results(_:sectionNameKeyPath:matching:fetchLimit:sortedBy:)``)
    /// look for commits made by other processes: `PRAGMA data_version` on a connection of their own,
    /// a few microseconds per look. Commits made in this process are seen at once, whatever this is.
    public var otherProcessPollInterval: Duration = .milliseconds(50)
    /// How many commits the store's change log keeps (at least one; 1,000 by default).
    ///
    /// Each operation that changes something writes, in its own transaction, which objects it
    /// inserted, updated and deleted (the row ids packed: a run of consecutive ids is a few bytes), so
    /// the other managers of the store apply its commit object by object. A manager that polls after
    /// more commits than this happened since it last read the log (a process that was suspended, say)
    /// refetches instead: slower, never wrong. Every manager of the store trims the log to its own
    /// limit when it writes, every sixteenth of the limit (so it holds up to that many commits more).
    public var changeLogLimit: Int = 1000
    /// Called with every error the manager reports (failed `Void` operations, view storage misuse,
    /// a corrupt store moved aside at open). When `nil` and no ``SQLiteStorageManager/errors()`` stream
    /// is listening, each error is one line on standard error.
    public var onError: (@Sendable (StorageError) -> Void)?

    /// A store named `name` in `folder`.
    public init(name: String, folder: URL) {
        self.name = name
        self.folder = folder
    }

    /// A store named `name` in the application-support folder of `appName` (see `AppDirectories`).
    public init(name: String, appName: String, directories: AppDirectories? = nil) {
        self.name = name
        self.folder = (directories ?? AppDirectories(appName: appName)).applicationSupport
    }

    /// The store file.
    public var fileURL: URL { folder.appendingPathComponent("\(name).sqlite") }
}

extension StorageConfiguration {
    /// The options SQLiteSupport opens the store with.
    var sqliteOptions: SQLiteStoreOptions {
        SQLiteStoreOptions(durability: durability == .full ? .full : .normal, busyTimeout: busyTimeout,
                           checksIntegrityAtOpen: checksIntegrityAtOpen, walSizeLimit: walSizeLimit,
                           pollInterval: otherProcessPollInterval)
    }
}
