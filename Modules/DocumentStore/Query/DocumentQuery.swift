import Foundation
import GRDB
import SQLiteSupport
import GRDBSQLite

/// A query over the documents of one kind (and its registered subclasses' kinds): a predicate on
/// their JSON, an order, a limit and an offset.
///
/// ```swift
/// let circles = try persistence.query(Circle.self)
///     .where(Field("radius") > 1)
///     .sorted(by: "area", ascending: false)
///     .limit(10)
///     .fetch()
/// ```
///
/// Values are always bound parameters. Kinds and field paths, which come from the program, are
/// quoted into the SQL text so that indexes made by ``Persistence/createIndex(kind:fields:)`` apply.
public struct DocumentQuery<T: Persistable>: Sendable {
    let persistence: Persistence
    /// The condition; `nil` for every document of the kind.
    public var predicate: DocumentPredicate?
    /// The order; the identifier always breaks ties.
    public var sort: [DocumentSort] = []
    /// At most this many results.
    public var limit: Int?
    /// Skips this many results first.
    public var offset = 0

    /// Adds a condition (combined with the existing one by AND).
    public func `where`(_ condition: DocumentPredicate) -> DocumentQuery {
        var copy = self
        copy.predicate = predicate.map { .and([$0, condition]) } ?? condition
        return copy
    }

    /// Adds an ordering term by a field.
    public func sorted(by field: Field, ascending: Bool = true) -> DocumentQuery {
        sorted(by: .field(field, ascending: ascending))
    }

    /// Adds an ordering term.
    public func sorted(by term: DocumentSort) -> DocumentQuery {
        var copy = self
        copy.sort.append(term)
        return copy
    }

    /// Limits the results to `count`, after skipping `offset`.
    public func limit(_ count: Int, offset: Int = 0) -> DocumentQuery {
        var copy = self
        copy.limit = count
        copy.offset = offset
        return copy
    }

    /// The matching objects, through the identity map (an object already alive is returned as is).
    ///
    /// - Returns: The objects, in the query's order.
    /// - Throws: What ``snapshots()`` throws, and, while building an object,
    ///   ``DocumentStoreError/unregisteredKind(kind:identifier:)``,
    ///   ``DocumentStoreError/wrongKind(identifier:expected:found:)``,
    ///   ``DocumentStoreError/documentRejected(identifier:kind:)``,
    ///   ``DocumentStoreError/identifierNotStored(kind:identifier:found:)`` or whatever
    ///   `init?(with:from:)` throws.
    public func fetch() throws -> [T] {
        try snapshots().map { snapshot in
            if let cached = persistence.cachedObject(snapshot.identifier), let typed = cached as? T { return typed }
            let row = Persistence.StoredRow(kind: snapshot.kind, revision: snapshot.revision, deleted: false,
                                            body: snapshot.body.canonicalText)
            return try persistence.makeObject(row, identifier: snapshot.identifier, as: T.self, replacing: false)
        }
    }

    /// The matching documents as JSON (`Sendable`: for other threads, and what live queries emit).
    ///
    /// - Returns: The snapshots, in the query's order.
    /// - Throws: ``DocumentStoreError/unsupportedQuery(_:)`` for a field path SQLite cannot name,
    ///   ``DocumentStoreError/malformedJSON(identifier:offset:reason:)`` for a stored body that is not
    ///   JSON; ``DocumentStoreError/busyTimeout(file:seconds:)``, ``DocumentStoreError/corruptDatabase(file:cause:)``,
    ///   ``DocumentStoreError/sqlite(code:message:sql:)`` or ``DocumentStoreError/databaseDeleted(file:)``
    ///   when the file cannot be read.
    public func snapshots() throws(DocumentStoreError) -> [DocumentSnapshot] {
        try persistence.snapshots(try compile(columns: "id, kind, revision, body", ordered: true))
    }

    /// The matching identifiers, in order.
    ///
    /// Reads no bodies: the cheapest way to know which documents match.
    ///
    /// - Throws: ``DocumentStoreError/unsupportedQuery(_:)`` for a field path SQLite cannot name;
    ///   ``DocumentStoreError/busyTimeout(file:seconds:)``, ``DocumentStoreError/corruptDatabase(file:cause:)``,
    ///   ``DocumentStoreError/sqlite(code:message:sql:)`` or ``DocumentStoreError/databaseDeleted(file:)``
    ///   when the file cannot be read.
    public func identifiers() throws(DocumentStoreError) -> [String] {
        let compiled = try compile(columns: "id", ordered: true)
        return try persistence.reading { db in
            let select = try StoreStatement(cached: compiled.sql, in: db)
            defer { select.reset() }
            compiled.bind(select)
            var identifiers: [String] = []
            while try select.step() { identifiers.append(select.text(at: 0) ?? "") }
            return identifiers
        }
    }

    /// How many documents match (ignoring the order; honouring limit and offset).
    ///
    /// - Throws: ``DocumentStoreError/unsupportedQuery(_:)`` for a field path SQLite cannot name;
    ///   ``DocumentStoreError/busyTimeout(file:seconds:)``, ``DocumentStoreError/corruptDatabase(file:cause:)``,
    ///   ``DocumentStoreError/sqlite(code:message:sql:)`` or ``DocumentStoreError/databaseDeleted(file:)``
    ///   when the file cannot be read.
    public func count() throws(DocumentStoreError) -> Int {
        var compiled = try compile(columns: "1", ordered: limit != nil || offset > 0)
        compiled.sql = "SELECT count(*) FROM (\(compiled.sql))"
        return try persistence.reading { db in
            let select = try StoreStatement(cached: compiled.sql, in: db)
            defer { select.reset() }
            compiled.bind(select)
            return try select.step() ? Int(select.int64(at: 0)) : 0
        }
    }

    /// SQLite's `EXPLAIN QUERY PLAN` for this query, one line per step (to check that an index is used).
    ///
    /// ```swift
    /// try persistence.createIndex(kind: Circle.self, fields: ["radius"])
    /// let plan = try persistence.query(Circle.self).where(Field("radius") > 1).explainQueryPlan()
    /// // one of its lines names the index: "... USING INDEX documents_Circle_radius_..."
    /// ```
    ///
    /// - Throws: ``DocumentStoreError/unsupportedQuery(_:)`` for a field path SQLite cannot name;
    ///   ``DocumentStoreError/busyTimeout(file:seconds:)``, ``DocumentStoreError/corruptDatabase(file:cause:)``,
    ///   ``DocumentStoreError/sqlite(code:message:sql:)`` or ``DocumentStoreError/databaseDeleted(file:)``
    ///   when the file cannot be read.
    public func explainQueryPlan() throws(DocumentStoreError) -> [String] {
        let compiled = try compile(columns: "id, kind, revision, body", ordered: true)
        return try persistence.reading { db in
            // Preparing does not check that the connection's copy of the schema is current, and an
            // EXPLAIN program never does: read the schema first, so indexes made since are seen.
            let refresh = try StoreStatement(uncached: "SELECT count(*) FROM sqlite_master", in: db)
            _ = try refresh.step()
            refresh.reset()
            let select = try StoreStatement(uncached: "EXPLAIN QUERY PLAN " + compiled.sql, in: db)
            defer { select.reset() }
            compiled.bind(select)
            var lines: [String] = []
            while try select.step() { lines.append(select.text(at: 3) ?? "") }
            return lines
        }
    }

    /// The SQL and its arguments (for tests and benchmarks that run the same query on raw SQLite).
    package func sql() throws(DocumentStoreError) -> (sql: String, arguments: [JSON]) {
        let compiled = try compile(columns: "id, kind, revision, body", ordered: true)
        return (compiled.sql, compiled.arguments)
    }

    func compile(columns: String, ordered: Bool) throws(DocumentStoreError) -> QuerySQL.Compiled {
        var arguments: [JSON] = []
        var sql = "SELECT \(columns) FROM documents WHERE deleted = 0 AND "
        sql += QuerySQL.kindCondition(persistence.registry.kinds(of: T.self))
        if let predicate {
            sql += " AND " + (try QuerySQL.condition(predicate, arguments: &arguments))
        }
        if ordered {
            var terms: [String] = []
            for term in sort {
                switch term.key {
                case .identifier: terms.append("id" + (term.ascending ? "" : " DESC"))
                case .field(let field): terms.append("json_extract(body, \(QuerySQL.literal(try field.jsonPath())))" + (term.ascending ? "" : " DESC"))
                }
            }
            if !sort.contains(where: { if case .identifier = $0.key { true } else { false } }) { terms.append("id") }
            sql += " ORDER BY " + terms.joined(separator: ", ")
        }
        if limit != nil || offset > 0 {
            sql += " LIMIT \(limit.map { max(0, $0) } ?? -1) OFFSET \(max(0, offset))"
        }
        return QuerySQL.Compiled(sql: sql, arguments: arguments)
    }
}

extension Persistence {
    /// Runs a compiled query that selects `id, kind, revision, body`.
    func snapshots(_ compiled: QuerySQL.Compiled) throws(DocumentStoreError) -> [DocumentSnapshot] {
        try reading { db in
            let select = try StoreStatement(cached: compiled.sql, in: db)
            defer { select.reset() }
            compiled.bind(select)
            var rows: [(String, String, String, String)] = []
            while try select.step() {
                rows.append((select.text(at: 0) ?? "", select.text(at: 1) ?? "", select.text(at: 2) ?? "", select.text(at: 3) ?? "{}"))
            }
            return try rows.map { row throws(DocumentStoreError) in
                DocumentSnapshot(identifier: row.0, kind: row.1, revision: row.2, body: try JSON(parsing: row.3, identifier: row.0))
            }
        }
    }

    /// A query over `type`'s documents (and its registered subclasses').
    public func query<T: Persistable>(_ type: T.Type) -> DocumentQuery<T> {
        DocumentQuery(persistence: self)
    }

    /// Creates (if missing) an index on `fields` of `kind`'s documents, which queries of exactly that
    /// kind filtering or sorting on those fields use. Returns the index's name.
    ///
    /// The index covers the kinds the query of `kind` covers now (`kind` and its registered subclasses).
    ///
    /// ```swift
    /// try persistence.createIndex(kind: Circle.self, fields: ["radius"])
    /// ```
    ///
    /// - Parameters:
    ///   - kind: The class whose queries the index serves; register its subclasses first.
    ///   - fields: The indexed paths, in the order a query filters or sorts on them.
    /// - Returns: The index's name, `documents_<kind>_<fields>_<digest>`.
    /// - Throws: ``DocumentStoreError/unsupportedQuery(_:)`` when `fields` is empty or a path cannot be
    ///   named; ``DocumentStoreError/diskFull(file:)``, ``DocumentStoreError/readOnly(file:)``,
    ///   ``DocumentStoreError/busyTimeout(file:seconds:)``, ``DocumentStoreError/sqlite(code:message:sql:)``
    ///   or ``DocumentStoreError/databaseDeleted(file:)`` when the file cannot be written.
    @discardableResult
    public func createIndex<T: Persistable>(kind: T.Type, fields: [Field]) throws(DocumentStoreError) -> String {
        guard !fields.isEmpty else { throw .unsupportedQuery("an index needs at least one field") }
        let kinds = registry.kinds(of: T.self)
        let expressions = try fields.map { field throws(DocumentStoreError) in try QuerySQL.extract(field) }
        let readable = ([T.kind] + fields.map(\.description)).joined(separator: "_")
            .map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
        let name = "documents_\(readable)_\(Self.digest(kinds.joined(separator: ",") + "|" + expressions.joined(separator: ",")))"
        // `kind` leads, so the planner sees the index match the query's kind term as well as the fields
        // (it would otherwise prefer the kind index for an equality over a range on the field).
        let sql = "CREATE INDEX IF NOT EXISTS \"\(name)\" ON documents(kind, \(expressions.joined(separator: ", "))) WHERE deleted = 0 AND \(QuerySQL.kindCondition(kinds))"
        do {
            // Only a missing index takes the write lock: opening a store that creates its indexes
            // every time then costs one read.
            let exists = try reading { db in
                try Bool.fetchOne(db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", arguments: [name]) ?? false
            }
            if !exists { try database.write { db in try db.execute(sql: sql) } }
        } catch {
            throw DocumentDatabase.storeError(error, file: database.path, busyTimeout: database.configuration.busyTimeout)
        }
        return name
    }

    /// A short stable digest for index names (FNV-1a, 32 bits).
    private static func digest(_ text: String) -> String {
        var hash: UInt32 = 0x811C9DC5
        for byte in text.utf8 { hash = (hash ^ UInt32(byte)) &* 0x01000193 }
        return String(hash, radix: 16)
    }
}
