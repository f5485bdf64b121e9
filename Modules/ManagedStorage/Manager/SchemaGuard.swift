import GRDB
import Synchronization

/// Refuses the operations of a manager whose model the store no longer has: another process (or
/// another manager in this one) migrated it to a newer model while this one had it open.
///
/// SQLite bumps `PRAGMA schema_version` (a number in the file's header, a few microseconds to read)
/// on every schema change. Each operation reads it inside its transaction; while it is the number
/// seen when the store was opened, nothing changed. When it moved, the recorded model decides: still
/// this program's (another manager of the same model made its change log, say), the new number is
/// kept; another model's, the operation fails with ``StorageError/schemaNewerThanProgram(file:unknownVersions:)``
/// before it reads or writes a row, so nothing is written into tables that changed under it.
final class SchemaGuard: Sendable {
    private let expected: Mutex<Int64>
    private let version: String
    private let fingerprint: String
    private let types: [String: String]
    private let file: String

    init(schemaVersion: Int64, version: String, fingerprint: String, types: [String: String], file: String) {
        expected = Mutex(schemaVersion)
        self.version = version
        self.fingerprint = fingerprint
        self.types = types
        self.file = file
    }

    /// `PRAGMA schema_version` as `db` sees it.
    static func schemaVersion(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA schema_version")) ?? 0
    }

    /// Throws when the store's model is no longer this manager's; inside the operation's transaction.
    func check(_ db: Database) throws {
        let seen = try Self.schemaVersion(db)
        if expected.withLock({ $0 == seen }) { return }
        let history = try SchemaHistory.read(db)
        guard let last = history.last else { return expected.withLock { $0 = seen } }
        guard last.version == version, last.fingerprint == fingerprint, last.types == nil || last.types == types else {
            throw StorageError.schemaNewerThanProgram(
                file: file, unknownVersions: ["the model \(last.fingerprint.prefix(12)) of version \(last.version), migrated while this store was open"])
        }
        expected.withLock { $0 = seen }
    }
}
