import Foundation
import GRDB
import SQLiteSupport
import Synchronization

/// The store's change log: which objects each committed operation inserted, updated and deleted,
/// written by the operation in its own transaction, so that another manager of the same file (in
/// another process, or another ``SQLiteStorageManager`` in this one) applies the commit like one of
/// its own instead of refetching every row. Core Data's persistent history, kept small.
///
/// Table `managedstorage_changes`, the store's own like `managedstorage_schema`: no entity may have
/// its name, no migration drops or changes it (it is in no model), the schema check ignores it. One
/// row per commit:
/// - `sequence` (the row id): the commit's number, one more than the last logged commit's, so the
///   numbers have no gaps: a reader that finds the number after the last one it read missing knows
///   that entries were trimmed before it read them;
/// - `writer`: the random token of the manager instance that committed (its own watcher skips them);
/// - `changes`: per entity and kind of change (``Kind``), the row ids as runs of consecutive ids
///   (``encode(_:)``, ``pack(_:)``), so the 100,000 rows of one insert are a few bytes.
///
/// A commit costs the log one `SELECT max(sequence)`, one `PRAGMA data_version` and one insert (one
/// page more in the commit), whatever the number of rows; every sixteenth of
/// ``StorageConfiguration/changeLogLimit`` commits, a trim to the newest `changeLogLimit`. Used on the
/// writer connection only: by the operations (``write(_:_:)``) and by the ``CommitWatcher``
/// (``read(after:_:)``).
final class ChangeLog: Sendable {
    static let table = "managedstorage_changes"

    /// What one section of a commit's entry says about its entity's rows.
    enum Kind: UInt8 {
        /// No entity: the writer found, at its commit, that somebody committed without a log entry
        /// since it last looked (a program that does not use ManagedStorage). Readers refetch.
        case unlogged = 0
        case inserted = 1
        case updated = 2
        case deleted = 3
        /// Every row of the entity was deleted by ``SQLiteStorageManager/reset()``.
        case reset = 4
    }

    /// What the writer connection saw when it last looked: its data version (which moves for every
    /// other connection's commit) and the log's last sequence, from one snapshot.
    struct Look: Sendable, Equatable {
        var dataVersion: Int64
        var sequence: Int64
    }

    /// One row of the log, as read.
    struct Entry: Equatable {
        let sequence: Int64
        let writer: Int64
        /// The commit's sections (``encode(_:)``).
        let changes: Data
    }

    /// One logged commit: what it changed, whose it is.
    struct Commit {
        let sequence: Int64
        let writer: Int64
        var changes = StorageChanges()
        /// The writer saw an unlogged commit right before this one (``Kind/unlogged``).
        var followsUnloggedCommit = false
    }

    /// What ``read(after:_:)`` found, from one snapshot.
    struct Reading {
        let dataVersion: Int64
        /// The log's last sequence (0 for an empty log).
        let last: Int64
        /// The entries after the sequence asked for, in order; `nil` when the log cannot be read.
        let entries: [Entry]?
    }

    /// This manager instance's token, in every row it writes.
    let token: Int64
    /// How many commits the log keeps (at least one).
    let limit: Int64
    /// Every how many commits the log is trimmed: a sixteenth of the limit, so a trim's pages are
    /// shared by many commits and the log holds at most that many commits more than the limit.
    let trimInterval: Int64
    private let look: Mutex<Look>

    /// A log written as `token` that keeps `limit` commits; `look` is what the writer saw at open
    /// (``current(_:)``).
    init(token: Int64 = Int64.random(in: 1...Int64.max), limit: Int, look: Look) {
        self.token = token
        self.limit = Int64(max(1, limit))
        trimInterval = max(1, self.limit / 16)
        self.look = Mutex(look)
    }

    // MARK: The table

    static let createSQL = """
        CREATE TABLE IF NOT EXISTS \(table) (sequence INTEGER PRIMARY KEY, writer INTEGER NOT NULL, \
        changes BLOB NOT NULL)
        """

    /// Creates the table unless the store has it (at open, after the migrations).
    static func create(_ writer: any DatabaseWriter) throws {
        guard try !writer.read({ db in try db.tableExists(table) }) else { return }
        try writer.write { db in try db.execute(sql: createSQL) }
    }

    /// The writer connection's data version and the log's last sequence now (at open, where no
    /// operation runs yet).
    static func current(_ writer: any DatabaseWriter) -> Look {
        (try? writer.writeWithoutTransaction { db in
            var look = Look(dataVersion: -1, sequence: 0)
            try db.inTransaction(.deferred) {
                look.sequence = (try? Int64.fetchOne(db, sql: "SELECT max(sequence) FROM \(table)")) ?? 0
                look.dataVersion = try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? -1
                return .commit
            }
            return look
        }) ?? Look(dataVersion: -1, sequence: 0)
    }

    // MARK: Writing

    /// Writes the entry of the commit in progress, on the writer inside the operation's transaction,
    /// and trims the log; returns what to pass to ``committed(_:)`` once the transaction committed
    /// (`nil`: nothing to log).
    func write(_ changes: StorageChanges, _ statements: ContextStatements) throws(StorageError) -> Look? {
        var sections = Self.sections(of: changes)
        guard !sections.isEmpty else { return nil }
        func lastSequence() throws(StorageError) -> Int64 {
            let statement = try statements.statement("SELECT max(sequence) FROM \(Self.table)")
            defer { statement.reset() }
            return try statement.step() ? statement.int64(at: 0) : 0
        }
        let last: Int64
        do {
            last = try lastSequence()
        } catch {
            // The table is gone (dropped by hand, or a copy from before it was restored): make it again.
            try statements.statement(Self.createSQL).run()
            last = try lastSequence()
        }
        let versionStatement = try statements.statement("PRAGMA data_version")
        defer { versionStatement.reset() }
        let version = try versionStatement.step() ? versionStatement.int64(at: 0) : -1
        // Somebody else committed since this connection last looked, and logged nothing.
        let seen = look.withLock { $0 }
        if version != seen.dataVersion && last <= seen.sequence {
            sections.insert(Section(kind: .unlogged, entity: "", rows: Data()), at: 0)
        }
        let sequence = last + 1
        let insert = try statements.statement("INSERT INTO \(Self.table) (sequence, writer, changes) VALUES (?, ?, ?)")
        insert.bind(sequence, at: 1)
        insert.bind(token, at: 2)
        insert.bind(Self.encode(sections), at: 3)
        try insert.run()
        if sequence > limit && sequence % trimInterval == 0 {
            let trim = try statements.statement("DELETE FROM \(Self.table) WHERE sequence <= ?")
            trim.bind(sequence - limit, at: 1)
            try trim.run()
        }
        return Look(dataVersion: version, sequence: sequence)
    }

    /// Remembers what the writer saw at a commit that logged something (after it committed).
    func committed(_ seen: Look) {
        look.withLock { $0 = seen }
    }

    // MARK: Reading

    /// The writer connection's data version, the log's last sequence and its entries after `sequence`,
    /// from one snapshot (on the writer, outside any operation: the order with this manager's own
    /// commits holds). Also what this connection last saw, for ``write(_:_:)``.
    func read(after sequence: Int64, _ db: Database) throws -> Reading {
        var reading = Reading(dataVersion: -1, last: 0, entries: nil)
        try db.inTransaction(.deferred) {
            let version = try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? -1
            do {
                let last = try Int64.fetchOne(db, sql: "SELECT max(sequence) FROM \(Self.table)") ?? 0
                var entries: [Entry] = []
                if last > sequence {
                    let rows = try Row.fetchCursor(db, sql: """
                        SELECT sequence, writer, changes FROM \(Self.table) WHERE sequence > ? ORDER BY sequence
                        """, arguments: [sequence])
                    while let row = try rows.next() {
                        entries.append(Entry(sequence: row[0], writer: row[1], changes: row[2] as Data? ?? Data()))
                    }
                }
                reading = Reading(dataVersion: version, last: last, entries: entries)
            } catch {
                // No log (somebody dropped it): every commit reads as one without an entry.
                reading = Reading(dataVersion: version, last: sequence, entries: nil)
            }
            return .commit
        }
        if reading.entries != nil {
            look.withLock { $0 = Look(dataVersion: reading.dataVersion, sequence: reading.last) }
        }
        return reading
    }

    /// The commits of `entries` (in order), or `nil` when an entry does not decode (then what
    /// changed is unknown).
    static func commits(_ entries: [Entry]) -> [Commit]? {
        var commits: [Commit] = []
        for entry in entries {
            guard let sections = decode(entry.changes) else { return nil }
            var commit = Commit(sequence: entry.sequence, writer: entry.writer)
            for section in sections {
                switch section.kind {
                case .unlogged:
                    commit.followsUnloggedCommit = true
                case .reset:
                    commit.changes.resetEntities.insert(section.entity)
                case .inserted, .updated, .deleted:
                    guard let ids = unpack(section.rows) else { return nil }
                    let objects = ids.map { StorageObjectID(entityName: section.entity, rowID: $0) }
                    switch section.kind {
                    case .inserted: commit.changes.inserted.formUnion(objects)
                    case .updated: commit.changes.updated.formUnion(objects)
                    default: commit.changes.deleted.formUnion(objects)
                    }
                }
            }
            commits.append(commit)
        }
        return commits
    }
}
