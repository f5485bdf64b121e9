import DocumentStore
import Foundation
import GRDBSQLite

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The peer: a store file made with `Persistence.schemaStatements`, written and read through SQLite's
/// C API with prepared statements, nothing else.
final class RawDocuments {
    let db: OpaquePointer

    init(path: String, create: Bool) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let handle else {
            throw BenchError("cannot open \(path)")
        }
        db = handle
        // What DocumentStore's pool uses: WAL, synchronous FULL.
        try exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL")
        if create {
            for statement in Persistence.schemaStatements { try exec(statement) }
            // The schema version schemaStatements makes: with an older one, opening the file with
            // Persistence (the load cases do) would run the upgrades again and fail on what exists.
            try exec("PRAGMA user_version = \(Persistence.schemaVersion)")
        }
    }

    deinit { sqlite3_close_v2(db) }

    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
            throw BenchError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        return statement
    }

    /// The rows a new document writes: `documents`, `revisions` and `changes`, in one transaction.
    /// Returns how long the COMMIT took (WAL writes and fsync), in seconds.
    @discardableResult
    func insert(_ rows: [Row]) throws -> Double {
        let document = try prepare("INSERT INTO documents(id, kind, revision, deleted, body) VALUES (?, ?, ?, 0, ?)")
        let revision = try prepare("INSERT INTO revisions(document, revision, parent, generation, deleted, body) VALUES (?, ?, NULL, 1, 0, NULL)")
        let change = try prepare("INSERT INTO changes(document, revision, deleted) VALUES (?, ?, 0)")
        defer { [document, revision, change].forEach { sqlite3_finalize($0) } }
        try exec("BEGIN IMMEDIATE")
        for row in rows {
            bind(document, 1, row.id)
            bind(document, 2, row.kind)
            bind(document, 3, row.revision)
            bind(document, 4, row.body)
            try step(document)
            let number = sqlite3_last_insert_rowid(db)
            sqlite3_bind_int64(revision, 1, number)
            bind(revision, 2, row.revision)
            try step(revision)
            sqlite3_bind_int64(change, 1, number)
            bind(change, 2, row.revision)
            try step(change)
        }
        let start = ContinuousClock.now
        try exec("COMMIT")
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Reads one document by identifier, as a program would: its kind, revision, deleted flag and body.
    func load(_ statement: OpaquePointer, _ id: String) -> (String, String, Bool, String)? {
        bind(statement, 1, id)
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return (text(statement, 0), text(statement, 1), sqlite3_column_int64(statement, 2) != 0, text(statement, 3))
    }

    /// Runs a query selecting `id, kind, revision, body` with one real parameter; returns the rows' ids.
    func query(_ statement: OpaquePointer, _ parameter: Double) -> [String] {
        sqlite3_bind_double(statement, 1, parameter)
        defer { sqlite3_reset(statement) }
        var ids: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            ids.append(text(statement, 0))
            _ = (text(statement, 1), text(statement, 2), text(statement, 3))
        }
        return ids
    }

    /// Every document row, for comparing two files.
    func dump() throws -> [String] {
        let statement = try prepare("SELECT id, kind, revision, body FROM documents ORDER BY id")
        defer { sqlite3_finalize(statement) }
        var rows: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append((0..<4).map { text(statement, Int32($0)) }.joined(separator: "|"))
        }
        return rows
    }

    func count(_ table: String) throws -> Int {
        let statement = try prepare("SELECT count(*) FROM \(table)")
        defer { sqlite3_finalize(statement) }
        return sqlite3_step(statement) == SQLITE_ROW ? Int(sqlite3_column_int64(statement, 0)) : -1
    }

    func plan(_ sql: String) throws -> [String] {
        let statement = try prepare("EXPLAIN QUERY PLAN " + sql)
        defer { sqlite3_finalize(statement) }
        var lines: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW { lines.append(text(statement, 3)) }
        return lines
    }

    private func step(_ statement: OpaquePointer) throws {
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
    }

    private func bind(_ statement: OpaquePointer, _ index: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                _ = sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), transient)
            }
        }
    }

    private func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column))), as: UTF8.self)
    }
}

private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// One document's rows, computed before the peer's timed region.
struct Row {
    let id: String
    let kind: String
    let revision: String
    let body: String
}
