import Foundation
import GRDB
import SQLiteSupport

/// One iteration of a ``DocumentSequence``: pages of rows read from one snapshot, in identifier
/// order, each row built into an object only when it is asked for.
final class DocumentCursor<T: Persistable> {
    private enum Source {
        case notStarted
        /// A read transaction of its own (a connection GRDB opens for it), released at the end.
        case snapshot(DatabaseSnapshot, kinds: [String])
        /// The write transaction the iteration began in.
        case transaction(WriteContext, kinds: [String])
        case finished
    }

    private struct Row {
        let identifier: String
        let kind: String
        let revision: String
        let body: String
    }

    private let persistence: Persistence
    private let pageSize: Int
    private var source = Source.notStarted
    /// The transaction the iteration began in, kept after the last page for the rows still to build.
    private var transaction: WriteContext?
    private var page: [Row] = []
    private var position = 0
    /// The last identifier read: the next page starts after it.
    private var after: String?

    init(persistence: Persistence, pageSize: Int) {
        self.persistence = persistence
        self.pageSize = pageSize
    }

    /// The next object, `nil` at the end. A row that fails to build is passed: the next call goes on.
    func next() throws -> T? {
        while position == page.count {
            guard try fetchPage() else { return nil }
        }
        let row = page[position]
        position += 1
        return try build(row)
    }

    private func build(_ row: Row) throws -> T {
        if let transaction, persistence.currentContext() !== transaction {
            throw DocumentStoreError.misuse("a DocumentSequence of \(T.kind) begun in a transaction was iterated after the transaction ended")
        }
        if let cached = persistence.cachedObject(row.identifier) {
            guard let typed = cached as? T else {
                throw DocumentStoreError.wrongKind(identifier: row.identifier, expected: T.kind, found: Persistence.kind(of: cached))
            }
            return typed
        }
        let stored = Persistence.StoredRow(kind: row.kind, revision: row.revision, deleted: false, body: row.body)
        return try persistence.makeObject(stored, identifier: row.identifier, as: T.self, replacing: false)
    }

    /// Reads the next page; false when there is none.
    private func fetchPage() throws(DocumentStoreError) -> Bool {
        page = []
        position = 0
        switch source {
        case .finished:
            return false
        case .notStarted:
            let kinds = persistence.registry.kinds(of: T.self)
            if let context = persistence.currentContext() {
                transaction = context
                source = .transaction(context, kinds: kinds)
            } else {
                source = .snapshot(try persistence.database.makeSnapshot(), kinds: kinds)
            }
            return try fetchPage()
        case .transaction(let context, let kinds):
            guard persistence.currentContext() === context else {
                source = .finished
                throw .misuse("a DocumentSequence of \(T.kind) begun in a transaction was iterated after the transaction ended")
            }
            do {
                page = try rows(context.db, kinds: kinds)
            } catch {
                throw DocumentDatabase.storeError(error, file: persistence.database.path, busyTimeout: persistence.configuration.busyTimeout)
            }
        case .snapshot(let snapshot, let kinds):
            do {
                page = try snapshot.read { db in try rows(db, kinds: kinds) }
            } catch {
                throw DocumentDatabase.storeError(error, file: persistence.database.path, busyTimeout: persistence.configuration.busyTimeout)
            }
        }
        // A short page is the last: release the snapshot now rather than when the iterator goes.
        if page.count < pageSize { source = .finished }
        after = page.last?.identifier ?? after
        return !page.isEmpty
    }

    private func rows(_ db: Database, kinds: [String]) throws -> [Row] {
        // `+kind` keeps the planner off the kind index, whose rows are not in identifier order (it
        // would sort every matching row again for each page); the unique index on `id` gives each page
        // in order, starting after the last identifier read.
        var sql = "SELECT id, kind, revision, body FROM documents WHERE deleted = 0 AND +" + QuerySQL.kindCondition(kinds)
        if after != nil { sql += " AND id > ?" }
        sql += " ORDER BY id LIMIT \(pageSize)"
        let select = try StoreStatement(cached: sql, in: db)
        defer { select.reset() }
        if let after { select.bind(after, at: 1) }
        var rows: [Row] = []
        rows.reserveCapacity(pageSize)
        while try select.step() {
            rows.append(Row(identifier: select.text(at: 0) ?? "", kind: select.text(at: 1) ?? "",
                            revision: select.text(at: 2) ?? "", body: select.text(at: 3) ?? "{}"))
        }
        return rows
    }
}
