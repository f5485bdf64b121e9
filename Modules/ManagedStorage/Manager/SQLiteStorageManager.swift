import FileStorageKit
import Foundation
import GRDB
import SQLiteSupport

/// ``StorageManagerType`` on one SQLite file in WAL mode, through GRDB's `DatabasePool`: readers never
/// wait for the writer, and the writer never waits for readers. For tests and previews,
/// ``inMemory(model:name:)`` makes one whose store lives in memory.
///
/// ```swift
/// let manager = try SQLiteStorageManager(
///     model: StorageModel(entities: [Order.self, OrderItem.self]),
///     configuration: StorageConfiguration(name: "Orders", appName: "WooShop"))
///
/// let copy = try await manager.write { storage in
///     let order = storage.insertNewObject(ofType: Order.self)
///     order.orderID = 42
///     return order.toReadOnly()
/// }
/// ```
///
/// Opening creates the store, or applies its pending schema versions as one unit, or, when the file is
/// damaged (`SQLITE_CORRUPT`/`SQLITE_NOTADB`, or a failed `quick_check`), moves it aside with its
/// `-wal`/`-shm` files and starts a new one, reporting ``StorageError/corruptStoreMovedAside(file:movedTo:cause:)``.
/// Everything else that prevents opening is a thrown ``StorageError``; nothing traps.
// @unchecked Sendable: every field is a constant but `derivedStorage`, set once at the end of `init` before `self` is shared; `viewContext` is used only on the main actor and `writerStatements` only on `writerQueue`
public final class SQLiteStorageManager: StorageManagerType, @unchecked Sendable {
    /// The store file (for an in-memory manager, `memory:///<name>.sqlite`, which is no file: see
    /// ``inMemory(model:name:)``).
    public let fileURL: URL
    /// Set when opening found a damaged store and moved it aside (also reported to `onError`).
    public let recoveredFromCorruption: StorageError?
    /// Set when opening moved aside a store this program's model could not open and started an empty
    /// one, as ``StorageConfiguration/incompatibleStore`` allows (also reported to `onError`):
    /// ``StorageError/incompatibleStoreMovedAside(file:movedTo:cause:)``.
    public let movedAsideAtOpen: StorageError?

    /// The pool (a file), or one in-memory connection (``inMemory(model:name:)``).
    let database: any DatabaseWriter
    let model: ResolvedModel
    let configuration: StorageConfiguration
    let hub: StorageEventHub
    /// Looks for other processes' commits once something listens to ``changes()``; `nil` in memory,
    /// where no other connection can commit.
    let watcher: CommitWatcher?
    /// Where each operation logs what it changed, for the other managers of the file; `nil` in memory.
    let changeLog: ChangeLog?
    /// Whether the store lives in memory (no file, no other process, no write-ahead log).
    let isInMemory: Bool
    private let writerQueue: DispatchQueue
    /// The writer connection's statements, prepared once for the store's life (used on `writerQueue`).
    private let writerStatements = StatementCache<StorageError>()
    private let lock: StoreLock?
    /// Refuses operations once another process migrated the store to another model; `nil` in memory.
    private let schemaGuard: SchemaGuard?
    private static let writerKey = DispatchSpecificKey<ObjectIdentifier>()
    /// Created here, used only on the main actor (through ``viewStorage``).
    nonisolated(unsafe) private let viewContext: StorageContext
    /// ``writerDerivedStorage``: set once, at the end of the initializer (it refers back to `self`).
    private var derivedStorage: DerivedStorage?

    /// Opens (creating, migrating or recovering) the store described by `configuration`.
    ///
    /// - Throws: ``StorageError/model(_:)`` for entity declarations that do not fit together,
    ///   ``StorageError/migrationFailed(version:underlying:)`` (the store is left as it was), or an
    ///   inferred change's own error, the store unchanged too:
    ///   ``StorageError/migrationNeedsDefault(entity:attribute:)``,
    ///   ``StorageError/migrationNeedsValue(entity:attribute:rows:)``,
    ///   ``StorageError/migrationBrokeRelationship(entity:relationship:target:rows:)``;
    ///   ``StorageError/schemaNewerThanProgram(file:unknownVersions:)``;
    ///   ``StorageError/schemaDiffers(entity:column:expected:found:)`` or
    ///   ``StorageError/schemaMismatch(entity:missingColumns:)`` when the tables, once migrated, do not
    ///   match the declarations; ``StorageError/cannotOpen(file:cause:)`` (a folder that cannot be
    ///   made or entered, a damaged store other processes have open, another process migrating for
    ///   longer than the configuration waits, an I/O error); ``StorageError/readOnly(file:)`` (the file
    ///   or its folder cannot be written); ``StorageError/diskFull(file:)``;
    ///   ``StorageError/busyTimeout(file:seconds:)``; ``StorageError/corruptDatabase(file:cause:)`` (a
    ///   damaged store in a read-only folder, left untouched). A corrupt store is otherwise no error: it
    ///   is moved aside and ``recoveredFromCorruption`` says so.
    public convenience init(model: StorageModel, configuration: StorageConfiguration) throws(StorageError) {
        let resolved = try model.resolve()
        let hub = StorageEventHub(label: configuration.fileURL.lastPathComponent, onError: configuration.onError)
        do {
            try AppDirectories.createFolder(configuration.folder)
        } catch {
            throw .cannotOpen(file: configuration.fileURL.path, cause: "\(error)")
        }
        let lock = try StoreRecovery.lock(configuration.fileURL, timeout: configuration.recoveryLockTimeout) { cause in
            StorageError.cannotOpen(file: configuration.fileURL.path, cause: cause)
        }
        let opener = StoreOpener(model: model, resolved: resolved, configuration: configuration, report: { hub.report($0) })
        let opened = try opener.open(lock: lock)
        self.init(model: resolved, configuration: configuration, hub: hub, database: opened.pool, fileURL: configuration.fileURL,
                  lock: lock, recovered: opened.recovered, movedAside: opened.movedAside, schemaGuard: opened.schemaGuard,
                  isInMemory: false)
    }

    /// A manager on an opened `database`; the one place that sets up queues, `viewStorage` and watchers.
    init(model resolved: ResolvedModel, configuration: StorageConfiguration, hub: StorageEventHub,
         database: any DatabaseWriter, fileURL: URL, lock: StoreLock?, recovered: StorageError?,
         movedAside: StorageError? = nil, schemaGuard: SchemaGuard? = nil, isInMemory: Bool) {
        self.model = resolved
        self.configuration = configuration
        self.fileURL = fileURL
        self.hub = hub
        self.lock = lock
        self.database = database
        self.recoveredFromCorruption = recovered
        self.movedAsideAtOpen = movedAside
        self.schemaGuard = schemaGuard
        self.isInMemory = isInMemory
        self.writerQueue = DispatchQueue(label: "ManagedStorage.writer(\(configuration.name))")
        self.viewContext = StorageContext(model: resolved, access: .reader(database), report: { hub.report($0) })
        if isInMemory {
            self.changeLog = nil
            self.watcher = nil
        } else {
            let start = ChangeLog.current(database)
            let changeLog = ChangeLog(limit: configuration.changeLogLimit, look: start)
            self.changeLog = changeLog
            self.watcher = CommitWatcher(path: fileURL.path, writer: database, log: changeLog, start: start,
                                         interval: configuration.otherProcessPollInterval, publish: { hub.publish($0) })
        }
        writerQueue.setSpecific(key: Self.writerKey, value: ObjectIdentifier(self))
        viewContext.manager = self
        derivedStorage = DerivedStorage(owner: ObjectIdentifier(self), run: { [weak self] block in
            guard let self else { return hub.report(.misuse("writerDerivedStorage.perform: its manager no longer exists")) }
            self.runAndWait(block)
        }, report: { hub.report($0) })
    }

    /// How errors name the store: its path, or its `memory:` URL.
    var storeDescription: String { isInMemory ? fileURL.absoluteString : fileURL.path }

    deinit {
        hub.finish()
        // Before the writer connection closes: GRDB closes a connection with unfinalized statements
        // only when they are finalized.
        database.writeWithoutTransaction { _ in writerStatements.finalize() }
    }

    // MARK: StorageManagerType

    @MainActor public var viewStorage: StorageType { viewContext }

    public func performAndSave(_ operation: @escaping @Sendable (StorageType) -> Void,
                               completion: (@Sendable () -> Void)?, on queue: DispatchQueue) {
        writerQueue.async { [self] in
            if case .failure(let error) = runOperation(operation) { hub.report(StorageError(error)) }
            if let completion { queue.async(execute: completion) }
        }
    }

    public func performAndSave<T: Sendable>(_ operation: @escaping @Sendable (StorageType) throws -> T,
                                            completion: @escaping @Sendable (Result<T, Error>) -> Void,
                                            on queue: DispatchQueue) {
        writerQueue.async { [self] in
            let result = runOperation(operation)
            queue.async { completion(result) }
        }
    }

    /// Runs `operation` on the writer in one transaction and returns its result once committed.
    ///
    /// The async form of the generic `performAndSave`, under its own name so no ported synchronous
    /// call becomes ambiguous in async code. Operations run one at a time in the order they were
    /// submitted, whichever form submitted them.
    ///
    /// - Throws: what the operation threw, or the first ``StorageError`` recorded during it, or the
    ///   commit's own failure (``StorageError/busyTimeout(file:seconds:)``,
    ///   ``StorageError/diskFull(file:)``, ``StorageError/readOnly(file:)``); the transaction is rolled
    ///   back in every case.
    public func write<T: Sendable>(_ operation: @escaping @Sendable (StorageType) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            writerQueue.async { [self] in continuation.resume(with: runOperation(operation)) }
        }
    }

    /// Runs `operation` on the writer and waits for it: for command-line programs and tests. Never call
    /// it from the main actor while it waits for something the main actor must do.
    ///
    /// ```swift
    /// let count = try manager.writeAndWait { storage in
    ///     let order = storage.insertNewObject(ofType: Order.self)
    ///     order.orderID = 1
    ///     return storage.countObjects(ofType: Order.self)
    /// }
    /// ```
    ///
    /// - Parameter operation: The changes, in one transaction; its result is returned once committed.
    /// - Returns: What `operation` returned.
    /// - Throws: ``StorageError/misuse(_:)`` when called from inside an operation of the same manager
    ///   (it would wait for itself); otherwise what `operation` threw, or the first ``StorageError``
    ///   recorded during it, or the commit's own failure (``StorageError/busyTimeout(file:seconds:)``,
    ///   ``StorageError/diskFull(file:)``, ``StorageError/readOnly(file:)``); the transaction is rolled
    ///   back in every case.
    public func writeAndWait<T>(_ operation: (StorageType) throws -> T) throws -> T {
        if DispatchQueue.getSpecific(key: Self.writerKey) == ObjectIdentifier(self) {
            throw StorageError.misuse("writeAndWait was called from inside an operation of the same store")
        }
        return try writerQueue.sync { try runOperation(operation).get() }
    }

    /// Runs `body` with a read-only storage whose every read sees one snapshot of the store: the
    /// transactions committed before it started, whole, and nothing committed after.
    ///
    /// `viewStorage` starts a new snapshot for each fetch; use this when several reads must agree
    /// (a count and a list, an object and its relationships). It never waits for the writer.
    ///
    /// - Throws: the first error recorded during `body` (a mutation attempt is one), or what it threw;
    ///   ``StorageError/schemaNewerThanProgram(file:unknownVersions:)`` when another process migrated
    ///   the store to another model since this manager opened it.
    public func read<T>(_ body: (StorageType) throws -> T) throws -> T {
        do {
            return try database.read { db -> T in
                try schemaGuard?.check(db)
                let context = StorageContext(model: model, access: .snapshot(try ContextStatements(reading: db)),
                                             report: { [hub] in hub.report($0) })
                defer { context.end() }
                let value = try body(context)
                if let error = context.errors.first { throw error }
                return value
            }
        } catch let error as StorageError {
            throw error
        } catch let error as DatabaseError {
            throw StorageError(error, file: storeDescription)
        }
    }

    public func reset() {
        if DispatchQueue.getSpecific(key: Self.writerKey) == ObjectIdentifier(self) {
            hub.report(.misuse("reset() was called from inside an operation; call it outside performAndSave"))
            return
        }
        let changes: StorageChanges = {
            var changes = StorageChanges()
            changes.resetEntities = Set(model.entities.map(\.name))
            return changes
        }()
        let result: Result<Void, StorageError> = writerQueue.sync { [self] in
            do {
                try database.writeWithoutTransaction { db in
                    var logged: ChangeLog.Look?
                    try db.inTransaction(.immediate) {
                        try schemaGuard?.check(db)
                        for entity in model.entities {
                            try db.execute(sql: "DELETE FROM \(entity.quotedName)")
                        }
                        logged = try changeLog?.write(changes, ContextStatements(cache: writerStatements, on: db))
                        return .commit
                    }
                    if let logged { changeLog?.committed(logged) }
                    // On the writer, so other managers' commits the watcher publishes keep their order.
                    hub.publish(changes)
                }
                return .success(())
            } catch {
                return .failure(StorageError(error, file: storeDescription, busyTimeout: configuration.busyTimeout))
            }
        }
        switch result {
        case .success:
            hub.publishReset()
            NotificationCenter.default.post(name: .StorageManagerDidResetStorage, object: self)
        case .failure(let error):
            hub.report(error)
        }
    }

    // MARK: WooCommerce's remaining members

    /// The store file: WooCommerce's `CoreDataManager.storeURL`, the same as ``fileURL``.
    ///
    /// An in-memory manager's is `memory:///<name>.sqlite`: not a file URL, so code that deletes or
    /// copies the store's files fails there instead of touching a real file.
    public var storeURL: URL { fileURL }

    /// See ``StorageManagerType/writerDerivedStorage``: one instance, shared by every caller; each
    /// `perform` block is one operation on this manager's writer, waited for.
    public var writerDerivedStorage: StorageType {
        derivedStorage ?? DerivedStorage(owner: ObjectIdentifier(self), run: { [hub] _ in
            hub.report(.misuse("writerDerivedStorage was used before its manager finished initializing"))
        }, report: { [hub] in hub.report($0) })
    }

    /// See ``StorageManagerType/saveDerivedType(derivedStorage:_:)``: `closure` runs at once, or
    /// right after the operation running on this thread ends (committed, or rolled back with its
    /// error reported).
    public func saveDerivedType(derivedStorage: StorageType, _ closure: @escaping () -> Void) {
        if !StorageBinding.deferUntilCommitted(of: ObjectIdentifier(self), closure) { closure() }
    }

    /// Runs `block` as one operation on the writer and returns after it, reporting a failure like the
    /// `Void` `performAndSave` (the derived storage's `perform`).
    private func runAndWait(_ block: @escaping (StorageType) -> Void) {
        if DispatchQueue.getSpecific(key: Self.writerKey) == ObjectIdentifier(self) {
            // On the writer but outside an operation (an `onError` hook, a completion on the writer's queue).
            hub.report(.misuse("writerDerivedStorage.perform was called on the writer's queue outside an operation; it would wait for itself"))
            return
        }
        writerQueue.sync {
            if case .failure(let error) = runOperation(block) { hub.report(StorageError(error)) }
        }
    }

    // MARK: Events

    /// Called with every error the manager reports; see ``StorageConfiguration/onError``.
    public var onError: (@Sendable (StorageError) -> Void)? {
        get { hub.onError }
        set { hub.onError = newValue }
    }

    /// A stream of the errors the manager reports from now on (failed `Void` operations, misuse of
    /// `viewStorage`). While any stream or `onError` listens, nothing is printed.
    public func errors() -> AsyncStream<StorageError> { hub.errors() }

    /// A stream of what each committed operation changed, in commit order (for live results).
    ///
    /// Commits made by other managers of the store file (other processes', or another manager of the
    /// same file in this process) arrive too, with ``StorageChanges/fromAnotherProcess`` set, within
    /// ``StorageConfiguration/otherProcessPollInterval`` of the commit: the first call starts looking.
    /// They name the objects they changed, read from the store's change log, unless those are unknown
    /// (``StorageChanges/objectsAreKnown``: another program's commit, or the log was trimmed first).
    public func changes() -> AsyncStream<StorageChanges> {
        let stream = hub.changes()
        watcher?.start()
        return stream
    }

    /// The sequence number of the last change published to ``changes()`` (for tests that wait for a
    /// results controller to catch up).
    package var publishedChangeSequence: Int { hub.publishedSequence }

    /// Looks for other processes' commits now instead of at the next poll (for tests).
    package func checkForOtherProcessesCommits() { watcher?.checkNow() }

    /// A stream that yields after each ``reset()``.
    public func resets() -> AsyncStream<Void> { hub.resets() }

    // MARK: Running operations

    /// Runs `operation` in one `BEGIN IMMEDIATE` transaction on the writer; must run on `writerQueue`.
    /// What it changed goes into the change log in the same transaction, and is published once committed.
    private func runOperation<T>(_ operation: (StorageType) throws -> T) -> Result<T, Error> {
        var outcome: Result<T, Error> = .failure(StorageError.misuse("the operation did not run"))
        var committed: StorageChanges?
        var afterCommit: [() -> Void] = []
        do {
            try database.writeWithoutTransaction { db in
                let statements = try ContextStatements(cache: writerStatements, on: db)
                var logged: ChangeLog.Look?
                try db.inTransaction(.immediate) {
                    // Before any row is read or written: the tables may have changed under this manager.
                    try schemaGuard?.check(db)
                    let context = StorageContext(model: model, access: .writer(statements),
                                                 report: { [hub] in hub.report($0) })
                    defer { context.end() }
                    do {
                        // `writerDerivedStorage` means this operation's storage while it runs.
                        let (value, deferred) = try StorageBinding.run(owner: ObjectIdentifier(self), storage: context) {
                            try operation(context)
                        }
                        afterCommit = deferred
                        context.flush()
                        if let error = context.errors.first {
                            outcome = .failure(error)
                            return .rollback
                        }
                        if let changeLog, !context.changes.isEmpty {
                            logged = try changeLog.write(context.changes, statements)
                        }
                        outcome = .success(value)
                        committed = context.changes
                        return .commit
                    } catch {
                        outcome = .failure(error)
                        return .rollback
                    }
                }
                if let logged { changeLog?.committed(logged) }
                // On the writer, so other managers' commits the watcher publishes keep their order.
                if let committed, !committed.isEmpty { hub.publish(committed) }
            }
        } catch {
            outcome = .failure(StorageError(error, file: storeDescription, busyTimeout: configuration.busyTimeout))
            committed = nil
        }
        if let committed, !committed.isEmpty { boundWriteAheadLog() }
        // Committed or rolled back (the error went to the caller), the operation is over: WooCommerce's
        // completions waiting in `saveDerivedType` must not wait forever for a failed save.
        for closure in afterCommit { closure() }
        return outcome
    }

    /// Keeps the `-wal` file near ``StorageConfiguration/walSizeLimit`` (see `WriteAheadLog`).
    private func boundWriteAheadLog() {
        guard !isInMemory else { return }
        WriteAheadLog.bound(path: fileURL.path, limit: configuration.walSizeLimit, writer: database)
    }
}
