import Foundation
import GRDB

/// The store's connection inside a ``StorageSchemaVersion`` written in SQL: statements and queries,
/// with ``StorageValue`` arguments, without importing GRDB.
///
/// ```swift
/// StorageSchemaVersion("3-normalize-status") { db in
///     try db.execute(sql: #"UPDATE "Order" SET "status" = lower("status")"#)
///     let open = try db.fetchAll(sql: #"SELECT "id" FROM "Order" WHERE "status" = ?"#, arguments: [.text("open")])
///     print(open.count)
/// }
/// ```
///
/// It runs inside the migration's transaction, with foreign keys checked when the version ends. The
/// tables are laid out as <doc:ChangingTheModel> describes.
public struct SchemaDatabase {
    let db: Database

    init(_ db: Database) { self.db = db }

    /// Runs one or more statements.
    ///
    /// - Parameters:
    ///   - sql: The statements, separated by semicolons; `?` marks an argument.
    ///   - arguments: One value per `?`, in order.
    /// - Throws: The error SQLite reported (GRDB's `DatabaseError`, whose description names the code,
    ///   the message and the SQL). Left to escape the version's closure, it fails the migration with
    ///   ``StorageError/migrationFailed(version:underlying:)`` and the migration's transaction is rolled back.
    public func execute(sql: String, arguments: [StorageValue] = []) throws {
        try db.execute(sql: sql, arguments: Self.arguments(arguments))
    }

    /// The rows of a query, each as its columns' values in order.
    ///
    /// - Parameters:
    ///   - sql: One `SELECT`; `?` marks an argument.
    ///   - arguments: One value per `?`, in order.
    /// - Returns: One array per row, one value per column.
    /// - Throws: The error SQLite reported (GRDB's `DatabaseError`, whose description names the code,
    ///   the message and the SQL). Left to escape the version's closure, it fails the migration with
    ///   ``StorageError/migrationFailed(version:underlying:)`` and the migration's transaction is rolled back.
    public func fetchAll(sql: String, arguments: [StorageValue] = []) throws -> [[StorageValue]] {
        try Row.fetchAll(db, sql: sql, arguments: Self.arguments(arguments)).map { row in
            row.databaseValues.map(StorageValue.init(databaseValue:))
        }
    }

    /// Whether the store has a table named `name`.
    ///
    /// ```swift
    /// if try db.tableExists("Coupon") { try db.execute(sql: #"DELETE FROM "Coupon""#) }
    /// ```
    ///
    /// - Throws: The error SQLite reported (GRDB's `DatabaseError`, whose description names the code,
    ///   the message and the SQL). Left to escape the version's closure, it fails the migration with
    ///   ``StorageError/migrationFailed(version:underlying:)`` and the migration's transaction is rolled back.
    public func tableExists(_ name: String) throws -> Bool {
        try db.tableExists(name)
    }

    /// The names of `table`'s columns, in order (`id` first for an entity's table); empty when there
    /// is no such table.
    ///
    /// - Throws: The error SQLite reported (GRDB's `DatabaseError`, whose description names the code,
    ///   the message and the SQL). Left to escape the version's closure, it fails the migration with
    ///   ``StorageError/migrationFailed(version:underlying:)`` and the migration's transaction is rolled back.
    public func columns(in table: String) throws -> [String] {
        try Row.fetchAll(db, sql: "PRAGMA table_xinfo(\(SQL.quote(table)))").map { $0["name"] }
    }

    static func arguments(_ values: [StorageValue]) -> StatementArguments {
        StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .null: nil
            case .integer(let v): v
            case .real(let v): v
            case .text(let v): v
            case .blob(let v): v
            }
        })
    }
}

extension StorageValue {
    init(databaseValue: DatabaseValue) {
        switch databaseValue.storage {
        case .null: self = .null
        case .int64(let v): self = .integer(v)
        case .double(let v): self = .real(v)
        case .string(let v): self = .text(v)
        case .blob(let v): self = .blob(v)
        }
    }
}
