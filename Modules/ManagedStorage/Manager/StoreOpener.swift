import Foundation
import FileStorageKit
import GRDB
import SQLiteSupport
import Synchronization

/// Opening a store: the pool, the schema versions as one unit, and recovery from a corrupt file.
struct StoreOpener {
    let model: StorageModel
    let resolved: ResolvedModel
    let configuration: StorageConfiguration
    let report: @Sendable (StorageError) -> Void

    var fileURL: URL { configuration.fileURL }
    var path: String { fileURL.path }
    /// The copy of the store taken before migrating; present only while migrations run (or after a
    /// crash during them, when the next open restores it).
    var migrationBackupURL: URL { fileURL.deletingLastPathComponent().appendingPathComponent("\(fileURL.lastPathComponent).before-migration") }

    /// Opens (and creates, migrates or recovers) the store.
    func open(lock: StoreLock?) throws(StorageError) -> (DatabasePool, recovered: StorageError?) {
        do {
            return (try openAndMigrate(), nil)
        } catch let error where Self.isCorruption(error) {
            let cause = error.description
            guard let lock else { throw error }
            let moved: URL
            do {
                moved = try StoreRecovery.moveAside(fileURL, lock: lock, timeout: configuration.recoveryLockTimeout)
            } catch .alreadyRecovered {
                return (try openAndMigrate(), nil)
            } catch {
                throw .cannotOpen(file: path, cause: error.cause(damage: cause))
            }
            let recovered = StorageError.corruptStoreMovedAside(file: path, movedTo: moved.path, cause: cause)
            report(recovered)
            return (try openAndMigrate(), recovered)
        }
    }

    static func isCorruption(_ error: StorageError) -> Bool {
        guard case .sqlite(let code, _, _) = error else { return false }
        let primary = code & 0xff
        return primary == 11 /* SQLITE_CORRUPT */ || primary == 26 /* SQLITE_NOTADB */
    }

    private var label: String { "ManagedStorage(\(configuration.name))" }

    private func openAndMigrate() throws(StorageError) -> DatabasePool {
        let pool: DatabasePool
        do {
            pool = try configuration.sqliteOptions.openPool(path: path, label: label, foreignKeys: true)
        } catch {
            throw StorageError(error, file: path, busyTimeout: configuration.busyTimeout, openFailure: true)
        }
        do {
            // One process at a time restores or migrates (see `MigrationLock`).
            try MigrationLock.withExclusive(for: fileURL, timeout: configuration.migrationLockTimeout) {
                try restoreInterruptedMigration(into: pool)
                try migrate(pool)
                // The store's own, beside the model's tables: no migration made it, none touches it.
                try ChangeLog.create(pool)
            }
            return pool
        } catch let busy as MigrationLock.Busy {
            try? pool.close()
            throw .cannotOpen(file: path, cause: "\(busy)")
        } catch {
            try? pool.close()
            throw StorageError(error, file: path, busyTimeout: configuration.busyTimeout, openFailure: true)
        }
    }

    /// Creates a store in memory: one connection (SQLite's in-memory databases belong to the
    /// connection that made them, and cannot be in WAL mode, so there is no pool), its schema made
    /// from the declarations. Nothing to migrate, check or recover.
    func openInMemory(description: String) throws(StorageError) -> DatabaseQueue {
        do {
            let queue = try DatabaseQueue(configuration: configuration.sqliteOptions.configuration(label: label, foreignKeys: true))
            try migrate(queue)
            return queue
        } catch {
            throw StorageError(error, file: description, openFailure: true)
        }
    }

    // MARK: Migrations

    /// Restores the pre-migration copy left by a process that died while migrating.
    private func restoreInterruptedMigration(into pool: any DatabaseWriter) throws {
        guard FileManager.default.fileExists(atPath: migrationBackupURL.path) else { return }
        let backup = try DatabaseQueue(path: migrationBackupURL.path)
        try backup.backup(to: pool)
        try backup.close()
        try FileManager.default.removeItem(at: migrationBackupURL)
    }

    /// Creates the store, or brings it to the declarations: the pending versions, then the inferred
    /// changes, as one unit (restored from a copy if any of it fails, or after a crash).
    private func migrate(_ pool: any DatabaseWriter) throws {
        let entities = resolved.entities
        let designs = resolved.designs
        let latest = model.versions.last?.identifier ?? Self.creationVersion
        let fingerprint = SchemaHistory.fingerprint(designs)
        let (fresh, history) = try pool.read { db in
            (try !db.tableExists("grdb_migrations") && !entities.contains { try db.tableExists($0.name) },
             try SchemaHistory.read(db))
        }
        // Tables and columns the toolkit made: the recorded models', and those this program's versions
        // name. A store from before the history was recorded: nothing is dropped.
        let versionModels = try model.versions.flatMap(\.models).map { try ResolvedModel($0).designs }
        let owned: [String: Set<String>]? = history.isEmpty ? nil : SchemaHistory.owned(history, versionModels + [designs])
        let current = Mutex<String>("")
        var migrator = DatabaseMigrator()
        migrator.registerMigration(Self.creationVersion) { db in
            current.withLock { $0 = Self.creationVersion }
            for entity in entities {
                for statement in entity.createStatements { try db.execute(sql: statement) }
            }
            try SchemaHistory.append(db, version: latest, model: designs)
        }
        for version in model.versions {
            migrator.registerMigration(version.identifier) { db in
                current.withLock { $0 = version.identifier }
                // A new store is created from the current declarations: older versions' changes are in it already.
                if !fresh { try apply(version, db, owned: owned) }
            }
        }
        let applied = try pool.read { db in try migrator.appliedIdentifiers(db) }
        let known = Set([Self.creationVersion] + model.versions.map(\.identifier))
        let unknown = applied.subtracting(known)
        guard unknown.isEmpty else {
            throw StorageError.schemaNewerThanProgram(file: path, unknownVersions: unknown.sorted())
        }
        // This program's model was recorded before the store's last one: a newer program migrated it.
        if let last = history.last, last.version != latest || last.fingerprint != fingerprint,
           let mine = history.firstIndex(where: { $0.version == latest && $0.fingerprint == fingerprint }) {
            let later = history[(mine + 1)...].map { "the model \($0.fingerprint.prefix(12)) of version \($0.version)" }
            throw StorageError.schemaNewerThanProgram(file: path, unknownVersions: Array(Set(later)).sorted())
        }
        let pending = !known.subtracting(applied).isEmpty
        let recorded = history.last.map { $0.version == latest && $0.fingerprint == fingerprint } ?? false
        if pending || (!fresh && !recorded) {
            let backedUp = !fresh
            if backedUp { try writeMigrationBackup(of: pool) }
            do {
                try migrator.migrate(pool)
                if !fresh {
                    current.withLock { $0 = Self.inferredVersion }
                    try inferAndRecord(pool, designs: designs, owned: owned, version: latest)
                }
            } catch {
                if backedUp { try restoreInterruptedMigration(into: pool) }
                throw Self.migrationError(error, version: current.withLock { $0 })
            }
            if backedUp { try FileManager.default.removeItem(at: migrationBackupURL) }
        }
        try verifyColumns(pool)
    }

    /// What the identifier of the inferred changes is called in errors.
    static let inferredVersion = "the changes inferred from the declarations"

    /// The error a failed migration reports: an inferred change's own typed error, or
    /// ``StorageError/migrationFailed(version:underlying:)`` naming the version that failed.
    static func migrationError(_ error: any Error, version: String) -> StorageError {
        if let error = error as? StorageError {
            switch error {
            case .migrationNeedsDefault, .migrationNeedsValue, .migrationBrokeRelationship, .migrationFailed, .schemaDiffers, .model:
                return error
            default: break
            }
        }
        if let error = error as? DatabaseError {
            return .migrationFailed(version: version, underlying: error.message ?? "\(error)")
        }
        return .migrationFailed(version: version, underlying: "\(error)")
    }

    /// Brings the store to `designs` in one transaction, with foreign keys off until it checks them,
    /// and records the model.
    private func inferAndRecord(_ pool: any DatabaseWriter, designs: [TableDesign], owned: [String: Set<String>]?,
                                version: String) throws {
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
            try db.inTransaction(.immediate) {
                try InferredMigration(target: designs, owned: owned).apply(db)
                try SchemaHistory.append(db, version: version, model: designs)
                return .commit
            }
        }
    }

    /// Runs one pending version inside its transaction (GRDB's migrator turned foreign keys off and
    /// checks them when it ends).
    private func apply(_ version: StorageSchemaVersion, _ db: Database, owned: [String: Set<String>]?) throws {
        switch version.change {
        case .sql(let migrate):
            try migrate(SchemaDatabase(db))
        case .inferred(nil):
            break
        case .inferred(let entities?):
            try InferredMigration(target: try ResolvedModel(entities).designs, owned: owned).apply(db)
        case .custom(let from, let to, let stage):
            let old = try ResolvedModel(from)
            let new = try ResolvedModel(to)
            // The stage's two models say what is the toolkit's, even in a store that recorded no model.
            let owned = SchemaHistory.owned([], [old.designs, new.designs]).merging(owned ?? [:]) { $0.union($1) }
            try InferredMigration(target: old.designs, owned: owned).apply(db)
            try InferredMigration(target: new.designs, owned: owned, additiveOnly: true).apply(db)
            try CustomStage(old: from, new: new, report: report).run(db, stage)
            try InferredMigration(target: new.designs, owned: owned).apply(db)
        }
    }

    static let creationVersion = "ManagedStorage.create"

    /// Copies the store with SQLite's backup API to a temporary file, syncs it, and renames it into place.
    private func writeMigrationBackup(of pool: any DatabaseWriter) throws {
        let temporary = migrationBackupURL.deletingLastPathComponent()
            .appendingPathComponent(".\(migrationBackupURL.lastPathComponent).tmp-\(getpid())")
        try? FileManager.default.removeItem(at: temporary)
        let copy = try DatabaseQueue(path: temporary.path)
        try pool.backup(to: copy)
        try copy.close()
        let fd = Foundation.open(temporary.path, O_RDONLY)
        if fd >= 0 { fsync(fd); close(fd) }
        guard rename(temporary.path, migrationBackupURL.path) == 0 else {
            throw StorageError.cannotOpen(file: path, cause: "cannot keep a copy before migrating: \(String(cString: strerror(errno)))")
        }
        try? DurableFile.syncFolder(fileURL.deletingLastPathComponent(), url: migrationBackupURL)
    }

    private func verifyColumns(_ pool: any DatabaseWriter) throws {
        try pool.read { db in try StoreSchemaCheck.verify(db, resolved) }
    }
}
