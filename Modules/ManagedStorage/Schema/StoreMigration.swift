import Foundation
import GRDB
import Synchronization

/// Creates a store, or brings it to a program's model, in one `BEGIN IMMEDIATE … COMMIT`.
///
/// In order, inside that one transaction (foreign keys off, set before it begins, and checked before
/// it commits): the store's state is read again under the write lock; a store written by a newer
/// program is refused; a new store's tables are made from the declarations; or the pending
/// ``StorageSchemaVersion``s run in order, then the changes inferred between the store's recorded model
/// and the declarations (``InferredMigration``), then the values of attributes whose type changed are
/// checked (``AttributeValueCheck``); and the model is recorded (``SchemaHistory``), with the applied
/// versions in `grdb_migrations`.
///
/// SQLite makes schema changes transactional, so there is no copy to take or restore: a failure
/// rolls everything back, and a process killed or a power cut before the commit leaves the store as
/// it was, with every transaction any other process committed before or after. Other processes'
/// writes wait while the migration holds the write lock (up to their busy timeout); one still open
/// with the old model is refused at its next operation (``SchemaGuard``).
struct StoreMigration {
    let model: StorageModel
    let resolved: ResolvedModel
    let path: String
    let report: @Sendable (StorageError) -> Void

    static let creationVersion = "ManagedStorage.create"
    /// What the identifier of the inferred changes is called in errors.
    static let inferredVersion = "the changes inferred from the declarations"
    /// GRDB's migrator's table, which stores made before this type kept their versions in: the same.
    static let appliedTable = "grdb_migrations"

    /// What the store holds, read in one snapshot.
    private struct State {
        var fresh: Bool
        var history: [SchemaHistory.Entry]
        var applied: Set<String>
    }

    /// What opening must do.
    private struct Plan {
        var create = false
        var pending: [StorageSchemaVersion] = []
        var infer = false
        var needsWrite: Bool { create || !pending.isEmpty || infer }
    }

    private var latest: String { model.versions.last?.identifier ?? Self.creationVersion }
    private var designs: [TableDesign] { resolved.designs }
    private var renames: Set<RenamePlan.Move> { InferredMigration.declaredRenames(designs) }
    private var types: [String: String] { AttributeValueCheck.types(resolved) }

    /// The guard of a manager of this model on a store whose `PRAGMA schema_version` is `schemaVersion`.
    func schemaGuard(schemaVersion: Int64) -> SchemaGuard {
        SchemaGuard(schemaVersion: schemaVersion, version: latest, fingerprint: SchemaHistory.fingerprint(designs),
                    types: types, file: path)
    }

    /// Runs whatever the store needs; writes nothing when it needs nothing (a read-only store opens).
    func run(_ pool: any DatabaseWriter) throws {
        try migrate(pool)
        // The tables, once migrated, are what the declarations make them.
        try pool.read { db in try StoreSchemaCheck.verify(db, resolved) }
    }

    private func migrate(_ pool: any DatabaseWriter) throws {
        let first = try pool.read { db in try plan(try state(db)) }
        guard first.needsWrite else { return }
        let current = Mutex<String>("")
        do {
            try pool.writeWithoutTransaction { db in
                // A no-op inside a transaction: set before it begins.
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                try db.inTransaction(.immediate) {
                    let state = try state(db)
                    try apply(try plan(state), state, db, current: current)
                    return .commit
                }
            }
        } catch let error as StorageError {
            throw current.withLock({ $0 }).isEmpty ? error : Self.migrationError(error, version: current.withLock { $0 })
        } catch {
            // Before any version ran (the write lock not had in time, say), the store's own error.
            let version = current.withLock { $0 }
            if version.isEmpty { throw error }
            throw Self.migrationError(error, version: version)
        }
    }

    private func state(_ db: Database) throws -> State {
        let hasApplied = try db.tableExists(Self.appliedTable)
        let fresh = try !hasApplied && !resolved.entities.contains { try db.tableExists($0.name) }
        let applied = hasApplied ? Set(try String.fetchAll(db, sql: "SELECT identifier FROM \(Self.appliedTable)")) : []
        return State(fresh: fresh, history: try SchemaHistory.read(db), applied: applied)
    }

    private func plan(_ state: State) throws -> Plan {
        let known = Set([Self.creationVersion] + model.versions.map(\.identifier))
        let unknown = state.applied.subtracting(known)
        guard unknown.isEmpty else {
            throw StorageError.schemaNewerThanProgram(file: path, unknownVersions: unknown.sorted())
        }
        let fingerprint = SchemaHistory.fingerprint(designs)
        // This program's model was recorded before the store's last one: a newer program migrated it.
        if let last = state.history.last, last.version != latest || last.fingerprint != fingerprint,
           let mine = state.history.firstIndex(where: { $0.version == latest && $0.fingerprint == fingerprint }) {
            let later = state.history[(mine + 1)...].map { "the model \($0.fingerprint.prefix(12)) of version \($0.version)" }
            throw StorageError.schemaNewerThanProgram(file: path, unknownVersions: Array(Set(later)).sorted())
        }
        var plan = Plan()
        if state.fresh { plan.create = true; return plan }
        plan.create = !state.applied.contains(Self.creationVersion)
        plan.pending = model.versions.filter { !state.applied.contains($0.identifier) }
        plan.infer = !SchemaHistory.isCurrent(state.history, version: latest, fingerprint: fingerprint,
                                              renames: renames, types: types)
        return plan
    }

    private func apply(_ plan: Plan, _ state: State, _ db: Database, current: borrowing Mutex<String>) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(Self.appliedTable) (identifier TEXT NOT NULL PRIMARY KEY)")
        func mark(_ identifier: String) throws {
            try db.execute(sql: "INSERT OR IGNORE INTO \(Self.appliedTable) (identifier) VALUES (?)", arguments: [identifier])
        }
        if plan.create {
            current.withLock { $0 = Self.creationVersion }
            for entity in resolved.entities {
                for statement in entity.createStatements { try db.execute(sql: statement) }
            }
            try mark(Self.creationVersion)
        }
        if state.fresh {
            // A new store is made from the current declarations: every version's changes are in it.
            for version in model.versions { try mark(version.identifier) }
            try SchemaHistory.append(db, version: latest, model: designs, renames: renames, types: types)
            try checkForeignKeys(db, version: Self.creationVersion)
            return
        }
        let owned = try owned(state)
        for version in plan.pending {
            current.withLock { $0 = version.identifier }
            try apply(version, db, owned: owned)
            try checkForeignKeys(db, version: version.identifier)
            try mark(version.identifier)
        }
        if plan.infer || !plan.pending.isEmpty || plan.create {
            current.withLock { $0 = Self.inferredVersion }
            var inferred = InferredMigration(target: designs, owned: owned)
            inferred.alreadyApplied = state.history.last?.renames ?? []
            try inferred.apply(db)
            try AttributeValueCheck.run(db, model: resolved, recorded: state.history.last?.types)
            try SchemaHistory.append(db, version: latest, model: designs, renames: renames, types: types)
        }
    }

    /// Tables and columns the toolkit made: the recorded models', and those this program's versions
    /// name. A store from before the history was recorded: nothing is dropped.
    private func owned(_ state: State) throws -> [String: Set<String>]? {
        guard !state.history.isEmpty else { return nil }
        let versionModels = try model.versions.flatMap(\.models).map { try ResolvedModel($0).designs }
        return SchemaHistory.owned(state.history, versionModels + [designs])
    }

    /// Runs one pending version (inside the migration's transaction, foreign keys off).
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

    /// What GRDB's migrator checked after each version: no row points at a row that does not exist.
    private func checkForeignKeys(_ db: Database, version: String) throws {
        guard let row = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") else { return }
        let table: String = row["table"]
        let parent: String = row["parent"]
        let rowID: Int64? = row["rowid"]
        throw StorageError.migrationFailed(version: version, underlying:
            "FOREIGN KEY constraint violation: row \(rowID.map(String.init) ?? "?") of \(table) points at no row of \(parent)")
    }

    /// The error a failed migration reports: an inferred change's own typed error, or
    /// ``StorageError/migrationFailed(version:underlying:)`` naming the version that failed.
    static func migrationError(_ error: any Error, version: String) -> StorageError {
        if let error = error as? StorageError {
            switch error {
            case .migrationNeedsDefault, .migrationNeedsValue, .migrationBrokeRelationship, .migrationCannotConvert,
                 .migrationFailed, .schemaDiffers, .schemaNewerThanProgram, .model:
                return error
            default: break
            }
        }
        if let error = error as? DatabaseError {
            return .migrationFailed(version: version, underlying: error.message ?? "\(error)")
        }
        return .migrationFailed(version: version, underlying: "\(error)")
    }
}
