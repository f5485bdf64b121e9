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
/// row per commit, entity and kind of change:
/// - `sequence`: the commit's number, one more than the last logged commit's, so the numbers have no
///   gaps: a reader that finds the number after the last one it read missing knows that entries were
///   trimmed before it read them;
/// - `writer`: the random token of the manager instance that committed (its own watcher skips them);
/// - `entity` (the table), `kind` (``Kind``) and `rows`: the row ids as runs of consecutive ids
///   (``pack(_:)``), so the 100,000 rows of one insert are a few bytes.
///
/// A commit costs the log one `SELECT max(sequence)`, one `PRAGMA data_version`, one insert per entity
/// and kind, and one trim (the newest ``StorageConfiguration/changeLogLimit`` commits are kept),
/// whatever the number of rows. Used on the writer connection only: by the operations (``write(_:_:)``)
/// and by the ``CommitWatcher`` (``read(after:_:)``).
final class ChangeLog: Sendable {
    static let table = "managedstorage_changes"

    /// What one row of the log says about its entity's rows.
    enum Kind: Int64 {
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
        let entity: String
        let kind: Int64
        let rows: Data
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
    private let look: Mutex<Look>

    /// A log written as `token` that keeps `limit` commits; `look` is what the writer saw at open
    /// (``current(_:)``).
    init(token: Int64 = Int64.random(in: 1...Int64.max), limit: Int, look: Look) {
        self.token = token
        self.limit = Int64(max(1, limit))
        self.look = Mutex(look)
    }

    // MARK: The table

    static let createSQL = """
        CREATE TABLE IF NOT EXISTS \(table) (sequence INTEGER NOT NULL, writer INTEGER NOT NULL, \
        entity TEXT NOT NULL, kind INTEGER NOT NULL, rows BLOB NOT NULL, \
        PRIMARY KEY (sequence, entity, kind))
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
        var rows = Self.rows(of: changes)
        guard !rows.isEmpty else { return nil }
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
            rows.insert(("", .unlogged, Data()), at: 0)
        }
        let sequence = last + 1
        let insert = try statements.statement(
            "INSERT INTO \(Self.table) (sequence, writer, entity, kind, rows) VALUES (?, ?, ?, ?, ?)")
        for row in rows {
            insert.bind(sequence, at: 1)
            insert.bind(token, at: 2)
            insert.bind(row.entity, at: 3)
            insert.bind(row.kind.rawValue, at: 4)
            insert.bind(row.rows, at: 5)
            try insert.run()
        }
        if sequence > limit {
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

    /// The rows of a commit's entry: per kind, per entity (by name), the row ids packed.
    static func rows(of changes: StorageChanges) -> [(entity: String, kind: Kind, rows: Data)] {
        var rows: [(entity: String, kind: Kind, rows: Data)] = []
        for (kind, objects) in [(Kind.inserted, changes.inserted), (.updated, changes.updated), (.deleted, changes.deleted)]
        where !objects.isEmpty {
            // Runs of one entity are the rule: compare with the last name before searching.
            var names: [String] = []
            var ids: [[Int64]] = []
            var current = -1
            for object in objects {
                if current < 0 || names[current] != object.entityName {
                    if let found = names.firstIndex(of: object.entityName) {
                        current = found
                    } else {
                        names.append(object.entityName)
                        ids.append([])
                        current = names.count - 1
                    }
                }
                ids[current].append(object.rowID)
            }
            for index in names.indices.sorted(by: { names[$0] < names[$1] }) {
                rows.append((names[index], kind, pack(&ids[index])))
            }
        }
        for entity in changes.resetEntities.sorted() {
            rows.append((entity, .reset, Data()))
        }
        return rows
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
                        SELECT sequence, writer, entity, kind, rows FROM \(Self.table) WHERE sequence > ? ORDER BY sequence
                        """, arguments: [sequence])
                    while let row = try rows.next() {
                        entries.append(Entry(sequence: row[0], writer: row[1], entity: row[2], kind: row[3],
                                             rows: row[4] as Data? ?? Data()))
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
            if commits.last?.sequence != entry.sequence {
                commits.append(Commit(sequence: entry.sequence, writer: entry.writer))
            }
            guard let kind = Kind(rawValue: entry.kind) else { return nil }
            if kind == .unlogged {
                commits[commits.count - 1].followsUnloggedCommit = true
                continue
            }
            if kind == .reset {
                commits[commits.count - 1].changes.resetEntities.insert(entry.entity)
                continue
            }
            guard let ids = unpack(entry.rows) else { return nil }
            let objects = ids.map { StorageObjectID(entityName: entry.entity, rowID: $0) }
            switch kind {
            case .inserted: commits[commits.count - 1].changes.inserted.formUnion(objects)
            case .updated: commits[commits.count - 1].changes.updated.formUnion(objects)
            case .deleted: commits[commits.count - 1].changes.deleted.formUnion(objects)
            case .unlogged, .reset: break
            }
        }
        return commits
    }

    // MARK: Packing row ids

    /// Row ids (distinct, any order; sorted in place) as runs of consecutive ids, each a pair of
    /// unsigned LEB128 numbers: how far the run starts after the previous one's end, as an unsigned
    /// distance (the first: its first id, zigzag-encoded), and its length less one.
    static func pack(_ ids: inout [Int64]) -> Data {
        guard let first = ids.first else { return Data() }
        var low = first, high = first
        for id in ids {
            low = min(low, id)
            high = max(high, id)
        }
        var bytes: [UInt8] = []
        // One run (a commit's inserts): no sort needed.
        let (span, overflow) = high.subtractingReportingOverflow(low)
        if !overflow && span == Int64(ids.count - 1) {
            appendVarint(zigzag(low), to: &bytes)
            appendVarint(UInt64(ids.count - 1), to: &bytes)
            return Data(bytes)
        }
        ids.sort()
        bytes.reserveCapacity(ids.count * 2)
        var index = 0
        var previousEnd: Int64 = 0
        while index < ids.count {
            let start = ids[index]
            var end = start
            while index + 1 < ids.count && ids[index + 1] == end &+ 1 {
                end += 1
                index += 1
            }
            if bytes.isEmpty {
                appendVarint(zigzag(start), to: &bytes)
            } else {
                appendVarint(UInt64(bitPattern: start &- previousEnd), to: &bytes)
            }
            appendVarint(UInt64(bitPattern: end &- start), to: &bytes)
            previousEnd = end
            index += 1
        }
        return Data(bytes)
    }

    /// The most ids ``unpack(_:)`` makes of one blob: more is no entry ManagedStorage wrote.
    static let unpackLimit = 1 << 25

    /// The row ids of ``pack(_:)``, ascending; `nil` for bytes it does not make, or that stand for more
    /// than `limit` ids.
    static func unpack(_ data: Data, limit: Int = unpackLimit) -> [Int64]? {
        var ids: [Int64] = []
        var offset = data.startIndex
        var previousEnd: Int64 = 0
        while offset < data.endIndex {
            guard let startCode = readVarint(data, &offset), let lengthCode = readVarint(data, &offset) else { return nil }
            let start: Int64
            if ids.isEmpty {
                start = Int64(bitPattern: startCode >> 1) ^ -Int64(bitPattern: startCode & 1)
            } else {
                // Runs are apart by at least one id that is in neither; the distance is unsigned
                // (from Int64.min to Int64.max does not fit an Int64).
                guard startCode >= 2, startCode <= UInt64(bitPattern: Int64.max &- previousEnd) else { return nil }
                start = previousEnd &+ Int64(bitPattern: startCode)
            }
            guard lengthCode < UInt64(max(0, limit - ids.count)) else { return nil }
            let (end, overflow) = start.addingReportingOverflow(Int64(lengthCode))
            guard !overflow else { return nil }
            ids.append(contentsOf: start...end)
            previousEnd = end
        }
        return ids
    }

    private static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7f) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private static func readVarint(_ data: Data, _ offset: inout Data.Index) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < data.endIndex {
            let byte = data[offset]
            offset += 1
            guard shift < 64 else { return nil }
            value |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }
}
