import Foundation
import SQLiteSupport
import FileStorageKit
import GRDB
import Synchronization

/// A document store: `Persistable` objects kept as JSON documents in one SQLite file, behind a weak
/// identity map. Dali's `Persistence`, with what Couchbase Lite adds: queries, revisions, conflicts,
/// a change feed and live queries.
///
/// ```swift
/// let persistence = try Persistence(name: "Shapes")
/// persistence.register(persistableKind: Square.self)
/// persistence.register(persistableKind: Circle.self)
/// try persistence.save(VennDiagram(left: Circle(radius: 1), right: Circle(radius: 2)))   // one transaction
/// let shape: Shape? = try persistence.load(identifier)   // a Square or a Circle
/// ```
///
/// `Persistence` may be used from any thread or task. The objects it returns are not `Sendable`: use
/// each one on the thread (or actor) that loaded it, and hand identifiers, not objects, to others.
/// Loading an identifier gives the same instance everywhere while anyone holds it.
public final class Persistence: Sendable {
    /// Where the store lives and how it behaves.
    public let configuration: PersistenceConfiguration
    let database: DocumentDatabase
    let identityMap = IdentityMap()
    let registry = KindRegistry()
    let hub: CommitHub
    /// How many ``WriteContext``s of this store exist (open transactions, and any a `DocumentSequence`
    /// begun in one still holds): while there are none, no task can have one bound, and
    /// ``currentContext()`` answers without looking up the task-local.
    let writeContexts = Atomic<Int>(0)
    /// Held shared while this store is open, so that no other process moves the file aside meanwhile.
    let lock: StoreLock?
    /// Set when opening found the file damaged and moved it aside (the store is then new and empty):
    /// ``DocumentStoreError/corruptStoreMovedAside(file:movedTo:cause:)``, with where the old file went.
    public let recoveredFromCorruption: DocumentStoreError?

    /// Opens (creating when missing) the store described by `configuration`.
    ///
    /// A file SQLite finds damaged (`SQLITE_CORRUPT`, `SQLITE_NOTADB`, or a failed `quick_check`) is
    /// moved aside with its `-wal` and `-shm` files to `<name>.sqlite.corrupt-<time>`, and a new store
    /// is opened: see ``recoveredFromCorruption``. (A sync client then pulls its documents again.) A
    /// store another process has open is never moved: that is ``DocumentStoreError/cannotOpen(file:cause:)``.
    ///
    /// - Throws: ``DocumentStoreError/cannotOpen(file:cause:)`` (a folder that cannot be made or
    ///   entered, a damaged store other processes have open, another program's database, an I/O error),
    ///   ``DocumentStoreError/readOnly(file:)`` (the file or its folder cannot be written),
    ///   ``DocumentStoreError/diskFull(file:)``, ``DocumentStoreError/busyTimeout(file:seconds:)``,
    ///   ``DocumentStoreError/corruptDatabase(file:cause:)`` (damaged, and its folder is read-only: left untouched),
    ///   ``DocumentStoreError/schemaNewerThanProgram(file:version:)``.
    public init(configuration: PersistenceConfiguration) throws(DocumentStoreError) {
        self.configuration = configuration
        let url = configuration.url
        do {
            try AppDirectories.createFolder(url.deletingLastPathComponent())
        } catch {
            throw .cannotOpen(file: url.path, cause: "\(error)")
        }
        let lock = try StoreRecovery.lock(url, timeout: configuration.recoveryLockTimeout) { cause in
            DocumentStoreError.cannotOpen(file: url.path, cause: cause)
        }
        self.lock = lock
        var recovered: DocumentStoreError?
        database = try StoreRecovery.openRecovering(
            url, lock: lock, timeout: configuration.recoveryLockTimeout,
            damage: DocumentDatabase.damage, cannotOpen: { DocumentStoreError.cannotOpen(file: url.path, cause: $0) },
            movedAside: { movedTo, cause in recovered = .corruptStoreMovedAside(file: url.path, movedTo: movedTo.path, cause: cause) },
            { () throws(DocumentStoreError) in try DocumentDatabase(configuration: configuration) })
        recoveredFromCorruption = recovered
        hub = CommitHub(path: url.path, interval: configuration.otherProcessPollInterval)
    }

    /// Looks for other processes' commits now, on the caller's thread, instead of at the next poll:
    /// live queries see them at once (tests need no waiting).
    package func checkForOtherProcessesCommits() { hub.checkNow() }

    /// Opens the store `<name>.sqlite` in the application-support folder of `appName` (`name` when nil).
    ///
    /// ```swift
    /// let persistence = try Persistence(name: "Shapes", appName: "shapes")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The file's name without `.sqlite`.
    ///   - appName: The application folder's name; `name` when `nil`.
    ///   - directories: Where the application-support folder is; the platform's when `nil`.
    /// - Throws: What ``init(configuration:)`` throws.
    public convenience init(name: String, appName: String? = nil, directories: AppDirectories? = nil) throws(DocumentStoreError) {
        try self.init(configuration: PersistenceConfiguration(name: name, appName: appName, directories: directories))
    }

    /// Opens the store named `databaseName`, as ``init(name:appName:directories:)`` does: Dali's
    /// `Persistence(databaseName:)` (which could return `nil`; this throws instead).
    ///
    /// - Parameters:
    ///   - databaseName: The file's name without `.sqlite`, also the application folder's name.
    ///   - directories: Where the application-support folder is; the platform's when `nil`.
    /// - Throws: What ``init(configuration:)`` throws.
    public convenience init(databaseName: String, directories: AppDirectories? = nil) throws(DocumentStoreError) {
        try self.init(name: databaseName, directories: directories)
    }

    /// Opens the store in the file `url`.
    ///
    /// ```swift
    /// let persistence = try Persistence(url: URL(fileURLWithPath: "/tmp/shapes.sqlite"))
    /// ```
    ///
    /// - Parameter url: The database file; its folder is created when missing.
    /// - Throws: What ``init(configuration:)`` throws.
    public convenience init(url: URL) throws(DocumentStoreError) {
        try self.init(configuration: PersistenceConfiguration(url: url))
    }

    /// The database file.
    public var url: URL { configuration.url }

    /// The SQL that creates a store's tables and indexes (schema version ``schemaVersion``), for tools
    /// that read or write the file directly, such as the raw-SQLite side of `Benchmarks/document-bench`.
    /// A file made with it must also get `PRAGMA user_version = <schemaVersion>`, or opening it runs
    /// the upgrades again.
    public static var schemaStatements: [String] { DocumentDatabase.schema }

    /// The schema version `schemaStatements` makes (kept in the file's `PRAGMA user_version`).
    public static var schemaVersion: Int { DocumentDatabase.schemaVersion }
}
