import DocumentStore
import Foundation
import PostgresNIO

/// One replication between a local store and the server schema, on one session: push, pull, and the
/// checkpoints of both, kept under the replication's identity.
struct Replication {
    let sync: DocumentSync
    let session: ServerSession
    /// The quoted schema name, for SQL.
    let schema: String
    let identity: String
    var persistence: Persistence { sync.persistence }
    var configuration: DocumentSync.Configuration { sync.configuration }
    var pushName: String { "sync-push:" + identity }
    var pullName: String { "sync-pull:" + identity }

    static func prepare(_ sync: DocumentSync, _ session: ServerSession) async throws -> Replication {
        let server = try await ServerSchema.prepare(session, schema: sync.configuration.schema, create: sync.configuration.createSchema)
        let replica = try sync.persistence.replicaIdentifier()
        let identity = ReplicationIdentity.make(replica: replica, server: server, schema: sync.configuration.schema,
                                                kinds: sync.configuration.kinds)
        return Replication(sync: sync, session: session, schema: "\"\(sync.configuration.schema)\"", identity: identity)
    }

    private func serverCheckpoint(_ column: String) async throws -> CheckpointHistory {
        CheckpointHistory(try await session.single(String.self, "SELECT \(unescaped: column) FROM \(unescaped: schema).checkpoints WHERE replication = \(identity)"))
    }

    /// Writes the server's copy of a checkpoint. With `waitForDisk` false (the pull's copy) the commit
    /// does not wait for the server's disk: a crash that loses it leaves an older entry, and the local
    /// history still holds that one.
    func setServerCheckpoint(_ column: String, _ history: CheckpointHistory, waitForDisk: Bool = true) async throws {
        let upsert: PostgresQuery = """
            INSERT INTO \(unescaped: schema).checkpoints(replication, \(unescaped: column)) VALUES (\(identity), \(history.description))
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

    /// Where a direction (`push` or `pull`) resumes: the newest checkpoint both copies share, and the
    /// local history from there.
    func resume(_ column: String) async throws -> (position: Int64, matched: CheckpointHistory) {
        CheckpointHistory.resume(local: CheckpointHistory(try persistence.checkpoint(column == "push" ? pushName : pullName)),
                                 remote: try await serverCheckpoint(column))
    }

    // MARK: Push

    /// Sends the local changes after the push checkpoint, one server transaction per batch; the server's
    /// copy of the checkpoint commits with the batch, the local copy right after.
    func push(_ report: inout DocumentSync.Report) async throws {
        var (position, history) = try await resume("push")
        while true {
            try Task.checkCancellation()
            let page = try persistence.outgoing(since: position, limit: configuration.batchSize, kinds: configuration.kinds)
            guard page.lastSequence > position else {
                // A first checkpoint even with nothing to send, so a pull can move it past what it inserts.
                if history.entries.isEmpty {
                    let first = history.adding(position)
                    try await setServerCheckpoint("push", first)
                    try persistence.setCheckpoint(first.description, for: pushName)
                }
                return
            }
            let missing = try await missingOnServer(page.documents)
            let next = history.adding(page.lastSequence)
            let documents = page.documents.filter { document in
                document.leaves.contains { missing.contains(document.identifier + "\u{0}" + $0.revision) }
            }
            try await session.transaction {
                if !documents.isEmpty { try await send(documents, missing: missing) }
                try await setServerCheckpoint("push", next)
            }
            try persistence.setCheckpoint(next.description, for: pushName)
            report.pushedDocuments += documents.count
            report.pushedRevisions += missing.count
            position = page.lastSequence
            history = next
            if !page.hasMore { return }
        }
    }

    /// The leaves of `documents` the server does not have, as `identifier NUL revision` (one index
    /// scan per document on the server: its revisions, at most the history limit plus its leaves).
    func missingOnServer(_ documents: [OutgoingDocument]) async throws -> Set<String> {
        guard !documents.isEmpty else { return [] }
        let rows = try await session.rows("""
            SELECT document, revision FROM \(unescaped: schema).revisions WHERE document = ANY(\(documents.map(\.identifier))::text[])
            """, as: (String, String).self)
        let present = Set(rows.map { $0.0 + "\u{0}" + $0.1 })
        var missing = Set<String>()
        for document in documents {
            for leaf in document.leaves where !present.contains(document.identifier + "\u{0}" + leaf.revision) {
                missing.insert(document.identifier + "\u{0}" + leaf.revision)
            }
        }
        return missing
    }

    /// Inserts the missing leaves with their ancestry, updates the leaf flags, prunes, and gives each
    /// touched document a new feed position from the counter row (taken last, so the lock is held briefly).
    func send(_ documents: [OutgoingDocument], missing: Set<String>) async throws {
        var leaf = (document: [String](), revision: [String](), parent: [String](), generation: [Int64](),
                    deleted: [Bool](), body: [String](), ancestors: [String]())
        var inner = (document: [String](), revision: [String](), parent: [String](), generation: [Int64]())
        for document in documents {
            for revision in document.leaves where missing.contains(document.identifier + "\u{0}" + revision.revision) {
                leaf.document.append(document.identifier)
                leaf.revision.append(revision.revision)
                leaf.parent.append(revision.ancestors.first ?? "")
                leaf.generation.append(Int64(Revision.generation(of: revision.revision) ?? 1))
                leaf.deleted.append(revision.deleted)
                leaf.body.append(revision.body)
                leaf.ancestors.append(revision.ancestors.joined(separator: " "))
                for (index, ancestor) in revision.ancestors.enumerated() {
                    inner.document.append(document.identifier)
                    inner.revision.append(ancestor)
                    inner.parent.append(index + 1 < revision.ancestors.count ? revision.ancestors[index + 1] : "")
                    inner.generation.append(Int64(Revision.generation(of: ancestor) ?? 1))
                }
            }
        }
        let s = schema
        if !inner.document.isEmpty {
            try await session.execute("""
                INSERT INTO \(unescaped: s).revisions(document, revision, parent, generation, digest, deleted, leaf)
                SELECT q.d, q.r, nullif(q.p, ''), q.g, split_part(q.r, '-', 2), false, false
                FROM unnest(\(inner.document)::text[], \(inner.revision)::text[], \(inner.parent)::text[], \(inner.generation)::int8[]) AS q(d, r, p, g)
                ON CONFLICT DO NOTHING
                """)
        }
        let inserted = try await session.rows("""
            INSERT INTO \(unescaped: s).revisions(document, revision, parent, generation, digest, deleted, leaf, body, ancestors)
            SELECT q.d, q.r, nullif(q.p, ''), q.g, split_part(q.r, '-', 2), q.x,
                NOT EXISTS (SELECT 1 FROM \(unescaped: s).revisions AS c WHERE c.document = q.d AND c.parent = q.r),
                q.b, string_to_array(nullif(q.a, ''), ' ')
            FROM unnest(\(leaf.document)::text[], \(leaf.revision)::text[], \(leaf.parent)::text[], \(leaf.generation)::int8[],
                        \(leaf.deleted)::bool[], \(leaf.body)::text[], \(leaf.ancestors)::text[]) AS q(d, r, p, g, x, b, a)
            ON CONFLICT DO NOTHING RETURNING document
            """, as: String.self)
        // Only documents that gained a revision change (a batch sent twice changes nothing the second time).
        let gained = Set(inserted)
        let touched = documents.map(\.identifier).filter(gained.contains)
        guard !touched.isEmpty else { return }
        let kindOf = Dictionary(documents.map { ($0.identifier, $0.kind) }, uniquingKeysWith: { a, _ in a })
        let kinds = touched.map { kindOf[$0] ?? "" }
        if !inner.document.isEmpty {
            // Every ancestor sent is an inner node now: it keeps no body.
            try await session.execute("""
                UPDATE \(unescaped: s).revisions AS r SET leaf = false, body = NULL, ancestors = NULL
                FROM unnest(\(inner.document)::text[], \(inner.revision)::text[]) AS q(d, r)
                WHERE r.document = q.d AND r.revision = q.r AND r.leaf
                """)
            try await session.execute("""
                DELETE FROM \(unescaped: s).revisions AS r USING (
                    SELECT document, max(generation) AS g FROM \(unescaped: s).revisions
                    WHERE document = ANY(\(touched)::text[]) AND leaf GROUP BY document) AS m
                WHERE r.document = m.document AND NOT r.leaf AND r.generation <= m.g - \(Int64(max(1, configuration.revisionHistoryLimit)))
                """)
        }
        // Last, and in one statement: feed positions from the counter row (its lock orders the feed by
        // commit), each touched document's winner by the shared rule, and the notification.
        try await session.execute("""
            WITH counter AS (UPDATE \(unescaped: s).feed SET value = value + \(Int64(touched.count)) RETURNING value),
            kinds AS (SELECT * FROM unnest(\(touched)::text[], \(kinds)::text[]) AS q(d, k)),
            upserted AS (
                INSERT INTO \(unescaped: s).documents(id, kind, winner, deleted, sequence, changed_at)
                SELECT w.document, kinds.k, w.revision, w.deleted,
                       (SELECT value FROM counter) - \(Int64(touched.count)) + row_number() OVER (ORDER BY w.document), now()
                FROM \(unescaped: s).winners(\(touched)::text[]) AS w JOIN kinds ON kinds.d = w.document
                ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, winner = excluded.winner, deleted = excluded.deleted,
                    sequence = excluded.sequence, changed_at = excluded.changed_at
                RETURNING 1)
            SELECT pg_notify(\(NotificationChannel.name(schema: configuration.schema)), (SELECT value FROM counter)::text),
                   (SELECT count(*) FROM upserted)
            """)
    }
}

/// The `LISTEN`/`NOTIFY` channel a schema's pushes announce themselves on.
enum NotificationChannel {
    static func name(schema: String) -> String { "document_sync_" + schema }
}
