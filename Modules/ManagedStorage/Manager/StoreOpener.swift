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
    /// What an earlier toolkit left while it migrated: its copy of the store (restored by it at the
    /// next open, which lost other processes' later commits), and that copy's temporary files.
    /// Migrations are one transaction now: these are removed, never restored.
    var leftoverCopyURL: URL { fileURL.deletingLastPathComponent().appendingPathComponent("\(fileURL.lastPathComponent).before-migration") }

    /// What opening found and made.
    struct Opened {
        let pool: DatabasePool
        /// A corrupt store moved aside.
        var recovered: StorageError?
        /// An incompatible store moved aside (``StorageConfiguration/IncompatibleStorePolicy/moveAsideAndStartEmpty``).
        var movedAside: StorageError?
        /// Refuses operations once another process migrated the store to another model.
        let schemaGuard: SchemaGuard
    }

    /// Opens (and creates, migrates or recovers) the store.
    func open(lock: StoreLock?) throws(StorageError) -> Opened {
        do {
            return try openRecovering(lock: lock)
        } catch let incompatibility where configuration.incompatibleStore == .moveAsideAndStartEmpty
                    && Self.isIncompatibility(incompatibility) {
            guard let lock else { throw incompatibility }
            let moved: URL??
            do {
                moved = try lock.withExclusive(timeout: configuration.recoveryLockTimeout) { () throws -> URL? in
                    // Another process may have moved it and made a new store first: only what is still incompatible moves.
                    if (try? openRecovering(lock: nil)) != nil { return nil }
                    return try DurableFile.moveAside(fileURL, label: "incompatible", companions: ["-wal", "-shm"])
                }
            } catch {
                throw .cannotOpen(file: path, cause: "it could not be moved aside (\(error)); it did not fit the model: \(incompatibility)")
            }
            var opened = try openRecovering(lock: lock)
            if let moved = moved ?? nil {
                let moveReport = StorageError.incompatibleStoreMovedAside(file: path, movedTo: moved.path, cause: incompatibility.description)
                report(moveReport)
                opened.movedAside = moveReport
            }
            return opened
        }
    }

    /// The errors ``StorageConfiguration/IncompatibleStorePolicy/moveAsideAndStartEmpty`` answers.
    static func isIncompatibility(_ error: StorageError) -> Bool {
        switch error {
        case .schemaNewerThanProgram, .migrationFailed, .migrationNeedsDefault, .migrationNeedsValue,
             .migrationBrokeRelationship, .migrationCannotConvert, .schemaDiffers, .schemaMismatch:
            true
        default:
            false
        }
    }

    /// Opens the store, moving a corrupt one aside (under `lock`) first: SQLiteSupport's one path
    /// (``StoreRecovery/openRecovering(_:lock:timeout:damage:cannotOpen:movedAside:_:)``).
    private func openRecovering(lock: StoreLock?) throws(StorageError) -> Opened {
        var recovered: StorageError?
        var opened = try StoreRecovery.openRecovering(
            fileURL, lock: lock, timeout: configuration.recoveryLockTimeout,
            damage: Self.damage, cannotOpen: { StorageError.cannotOpen(file: path, cause: $0) },
            movedAside: { movedTo, cause in
                let moved = StorageError.corruptStoreMovedAside(file: path, movedTo: movedTo.path, cause: cause)
                report(moved)
                recovered = moved
            },
            openAndMigrate)
        opened.recovered = recovered
        return opened
    }

    /// SQLite's cause when `error` is a damaged store, which is moved aside.
    static func damage(_ error: StorageError) -> String? {
        switch error {
        case .corruptDatabase(_, let cause): cause
        default: nil
        }
    }

    private var label: String { "ManagedStorage(\(configuration.name))" }

    private func openAndMigrate() throws(StorageError) -> Opened {
        let pool: DatabasePool
        do {
            pool = try configuration.sqliteOptions.openPool(path: path, label: label, foreignKeys: true)
        } catch {
            throw StorageError(error, file: path, busyTimeout: configuration.busyTimeout, openFailure: true)
        }
        do {
            // One process at a time migrates (see `MigrationLock`): the next finds nothing left to do.
            return try MigrationLock.withExclusive(for: fileURL, timeout: configuration.migrationLockTimeout) {
                try removeLeftovers()
                try migration.run(pool)
                // The store's own, beside the model's tables: no migration made it, none touches it.
                try ChangeLog.create(pool)
                // Read under the lock: no other process migrates before this number is known.
                let schemaVersion = try pool.read { db in try SchemaGuard.schemaVersion(db) }
                return Opened(pool: pool, schemaGuard: migration.schemaGuard(schemaVersion: schemaVersion))
            }
        } catch let busy as MigrationLock.Busy {
            try? pool.close()
            throw .cannotOpen(file: path, cause: "\(busy)")
        } catch {
            try? pool.close()
            throw StorageError(error, file: path, busyTimeout: configuration.busyTimeout, openFailure: true)
        }
    }

    private var migration: StoreMigration {
        StoreMigration(model: model, resolved: resolved, path: path, report: report)
    }

    /// Creates a store in memory: one connection (SQLite's in-memory databases belong to the
    /// connection that made them, and cannot be in WAL mode, so there is no pool), its schema made
    /// from the declarations. Nothing to migrate, check or recover.
    func openInMemory(description: String) throws(StorageError) -> DatabaseQueue {
        do {
            let queue = try DatabaseQueue(configuration: configuration.sqliteOptions.configuration(label: label, foreignKeys: true))
            try migration.run(queue)
            return queue
        } catch {
            throw StorageError(error, file: description, openFailure: true)
        }
    }

    // MARK: Migrations

    /// Removes an earlier toolkit's pre-migration copy and its temporary files (any process's: they are
    /// never read again), and flushes the folder so they stay gone. Runs under the migration lock.
    private func removeLeftovers() throws {
        let folder = fileURL.deletingLastPathComponent()
        let copy = leftoverCopyURL.lastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let leftovers = names.filter { $0 == copy || $0.hasPrefix(".\(copy).tmp-") }
        guard !leftovers.isEmpty else { return }
        for name in leftovers { unlink(folder.appendingPathComponent(name).path) }
        try DurableFile.syncFolder(folder, url: leftoverCopyURL)
    }
}
