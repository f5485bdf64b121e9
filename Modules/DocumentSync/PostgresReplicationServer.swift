import DocumentStore
import Foundation
import PostgresNIO

/// The ``ReplicationServer`` of the product: one schema on a PostgreSQL server (see ``ServerSchema``),
/// through one ``ServerSession``. A batch is one server transaction that locks its documents
/// (`pg_advisory_xact_lock`), reads their trees, inserts what is missing and takes feed positions from
/// the counter row last (its row lock orders the feed by commit); a feed page is one read-only
/// repeatable-read snapshot. Errors come out classified as ``DocumentSyncError``.
///
/// Concurrency: one session runs one statement at a time, so one replication uses it at a time;
/// replicas share the server through connections of their own.
package struct PostgresReplicationServer: ReplicationServer {
    let session: ServerSession
    /// The schema's name, and quoted, for SQL.
    let schemaName: String
    let schema: String
    package let serverIdentifier: String
    /// Whether the schema has `purges` (see ``ServerSchema``).
    let purgeRecords: Bool
    /// Whether access control is on (``ServerAccess``): every read and write goes through the schema's
    /// functions, which filter by the caller's channels and check what they accept.
    let access: Bool

    /// Makes the schema ready on `session` (created when missing if `create` allows it; see
    /// ``ServerSchema/prepare(_:schema:create:)``) and reads the server's identity.
    static func prepare(_ session: ServerSession, schema: String, create: Bool) async throws -> PostgresReplicationServer {
        let installed = try await ServerSchema.prepare(session, schema: schema, create: create)
        return PostgresReplicationServer(session: session, schemaName: schema, schema: "\"\(schema)\"",
                                         serverIdentifier: installed.server, purgeRecords: installed.purges,
                                         access: installed.access)
    }

    // MARK: Checkpoints

    package func checkpoint(_ direction: ReplicationDirection, of replication: String) async throws -> CheckpointHistory {
        if access {
            return CheckpointHistory(try await session.single(String.self, """
                SELECT \(unescaped: schema).checkpoint_get(\(replication), \(direction.rawValue))
                """))
        }
        return CheckpointHistory(try await session.single(String.self, "SELECT \(unescaped: direction.rawValue) FROM \(unescaped: schema).checkpoints WHERE replication = \(replication)"))
    }

    package func setCheckpoint(_ history: CheckpointHistory, _ direction: ReplicationDirection, of replication: String,
                       waitForDisk: Bool) async throws {
        let column = direction.rawValue
        let upsert: PostgresQuery = access ? """
            SELECT \(unescaped: schema).checkpoint_set(\(replication), \(column), \(history.description))
            """ : """
            INSERT INTO \(unescaped: schema).checkpoints(replication, \(unescaped: column)) VALUES (\(replication), \(history.description))
            ON CONFLICT (replication) DO UPDATE SET \(unescaped: column) = excluded.\(unescaped: column), updated_at = now()
            """
        if waitForDisk {
            try await session.execute(upsert)
        } else {
            try await session.transaction {
                try await session.execute("SET LOCAL synchronous_commit = off")
                try await session.execute(upsert)
            }
        }
    }

    // MARK: Push

    package func push(_ documents: [OutgoingDocument], checkpoint: CheckpointHistory, of replication: String,
              historyLimit: Int) async throws -> (documents: Int, revisions: Int) {
        try await retryingConflicts {
            try await session.transaction {
                let sent = try await send(documents, historyLimit: historyLimit)
                try await setCheckpoint(checkpoint, .push, of: replication, waitForDisk: true)
                return sent
            }
        }
    }

    package func insert(_ leaves: MissingLeaves, historyLimit: Int) async throws -> Int {
        try await session.transaction { try await insertLeaves(leaves, historyLimit: historyLimit) }
    }

    /// Runs `work` (one server transaction) again when the server aborted it for a deadlock or a
    /// serialization failure, a few times; any other failure, or the last one, is thrown.
    func retryingConflicts<R: Sendable>(_ work: () async throws -> R) async throws -> R {
        var attempt = 0
        while true {
            do {
                return try await work()
            } catch DocumentSyncError.server(let state, let message) where ["40001", "40P01"].contains(state) {
                attempt += 1
                if attempt >= 5 { throw DocumentSyncError.server(sqlState: state, message: message) }
                try await Task.sleep(for: .milliseconds(Int.random(in: 5...50) * attempt))
            }
        }
    }

    /// Takes the transaction-level lock of each document, in one fixed order (so two transactions never
    /// wait on each other in a cycle). Every push and purge of a document holds its lock from before it
    /// reads the document's tree until it commits, so each one sees every earlier one's whole result:
    /// `documents` always holds the winner of the tree as committed.
    func lockDocuments(_ identifiers: [String]) async throws {
        guard !identifiers.isEmpty else { return }
        try await session.execute("""
            SELECT count(pg_advisory_xact_lock(hashtext(\("document_sync:" + schemaName)), s.k))
            FROM (SELECT DISTINCT hashtext(d) AS k FROM unnest(\(identifiers)::text[]) AS d ORDER BY k) AS s
            """)
    }

    /// Inside a push's transaction: locks the documents, reads their trees, and inserts the leaves the
    /// server lacks (with their ancestry; see ``MissingLeaves``). Returns the documents and revisions it sent.
    func send(_ documents: [OutgoingDocument], historyLimit: Int) async throws -> (documents: Int, revisions: Int) {
        guard !documents.isEmpty else { return (0, 0) }
        try await lockDocuments(documents.map(\.identifier))
        // With access control, only the trees the caller may read: a document it may not read looks
        // missing, and the server refuses the leaves sent for it.
        let rows = try await session.rows(access ? """
            SELECT document, revision, generation, leaf FROM \(unescaped: schema).tree(\(documents.map(\.identifier))::text[])
            """ : """
            SELECT document, revision, generation::int8, leaf FROM \(unescaped: schema).revisions
            WHERE document = ANY(\(documents.map(\.identifier))::text[])
            """, as: (String, String, Int64, Bool).self)
        let nodes = rows.map { MissingLeaves.ServerNode(document: $0.0, revision: $0.1, generation: $0.2, leaf: $0.3) }
        let missing = MissingLeaves(documents, server: nodes, historyLimit: historyLimit)
        guard !missing.documents.isEmpty else { return (0, 0) }
        let touched = try await insertLeaves(missing, historyLimit: historyLimit)
        return (touched, missing.revisions)
    }
}
