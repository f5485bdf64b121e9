import Foundation
import GRDB

/// The GRDB peers: the same rows as GRDB records, in the table ManagedStorage makes for `BenchOrder`
/// (`RawSQLite.ordersTable`: STRICT, `"id" INTEGER PRIMARY KEY AUTOINCREMENT`, the date as a REAL of
/// seconds since 1970), through a `DatabaseQueue` in WAL mode with `synchronous = FULL`.

/// A record written by hand: `init(row:)` reads the columns by index (in the table's order, `SELECT *`),
/// `encode(to:)` fills the container by name. What GRDB's documentation suggests when speed matters.
struct GRDBOrder: FetchableRecord, PersistableRecord {
    static let databaseTableName = "BenchOrder"
    var id: Int64?
    var orderID: Int64
    var status: String
    var total: Double
    var dateCreated: Date
    var note: String?

    init(_ row: BenchRow) {
        orderID = row.orderID
        status = row.status
        total = row.total
        dateCreated = row.dateCreated
        note = row.note
    }

    init(row: Row) {
        id = row[0]
        orderID = row[1]
        status = row[2]
        total = row[3]
        dateCreated = Date(timeIntervalSince1970: row[4])
        note = row[5]
    }

    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["orderID"] = orderID
        container["status"] = status
        container["total"] = total
        container["dateCreated"] = dateCreated.timeIntervalSince1970
        container["note"] = note
    }
}

/// The same hand-written record reading its columns by name (`row["status"]`), the other common
/// spelling; fetched only (its inserts would be `GRDBOrder`'s).
struct GRDBOrderByName: FetchableRecord, TableRecord {
    static let databaseTableName = "BenchOrder"
    var id: Int64?
    var orderID: Int64
    var status: String
    var total: Double
    var dateCreated: Date
    var note: String?

    init(row: Row) {
        id = row["id"]
        orderID = row["orderID"]
        status = row["status"]
        total = row["total"]
        dateCreated = Date(timeIntervalSince1970: row["dateCreated"])
        note = row["note"]
    }
}

/// The same record through `Codable`: GRDB's encoder and decoder, dates as seconds since 1970 (GRDB's
/// default text format would not fit the STRICT REAL column).
struct GRDBCodableOrder: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "BenchOrder"
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSince1970 }
    var id: Int64?
    var orderID: Int64
    var status: String
    var total: Double
    var dateCreated: Date
    var note: String?

    init(_ row: BenchRow) {
        orderID = row.orderID
        status = row.status
        total = row.total
        dateCreated = row.dateCreated
        note = row.note
    }
}

/// One GRDB connection on a store file, with the bench's settings.
final class GRDBPeer {
    let queue: DatabaseQueue

    /// Opens (or creates) `path` in WAL mode with `synchronous = FULL` (GRDB sets NORMAL with WAL, so
    /// it is set again after the open and checked) and creates the orders' table if it is missing.
    init(path: String) throws {
        var configuration = Configuration()
        configuration.journalMode = .wal
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous")
            let journal = try String.fetchOne(db, sql: "PRAGMA journal_mode")
            guard synchronous == 2, journal == "wal" else {
                throw BenchError("GRDB connection: synchronous \(synchronous ?? -1), journal_mode \(journal ?? "?"), not FULL (2) and wal")
            }
            try db.execute(sql: RawSQLite.ordersTable)
        }
    }

    /// Inserts `rows` as hand-written records in one `BEGIN IMMEDIATE` transaction (the records are made
    /// inside the timed region, as ManagedStorage's objects are).
    func insertHandWritten(_ rows: [BenchRow]) throws {
        try queue.inTransaction(.immediate) { db in
            for row in rows { try GRDBOrder(row).insert(db) }
            return .commit
        }
    }

    /// Inserts `rows` as Codable records in one `BEGIN IMMEDIATE` transaction.
    func insertCodable(_ rows: [BenchRow]) throws {
        try queue.inTransaction(.immediate) { db in
            for row in rows { try GRDBCodableOrder(row).insert(db) }
            return .commit
        }
    }

    func fetchHandWritten() throws -> [GRDBOrder] {
        try queue.read { db in try GRDBOrder.order(Column("id")).fetchAll(db) }
    }

    func fetchByName() throws -> [GRDBOrderByName] {
        try queue.read { db in try GRDBOrderByName.order(Column("id")).fetchAll(db) }
    }

    func fetchCodable() throws -> [GRDBCodableOrder] {
        try queue.read { db in try GRDBCodableOrder.order(Column("id")).fetchAll(db) }
    }
}
