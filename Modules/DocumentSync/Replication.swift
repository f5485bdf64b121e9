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
    /// Whether the schema has `purges` (see ``ServerSchema``).
    let purgeRecords: Bool
    var persistence: Persistence { sync.persistence }
    var configuration: DocumentSync.Configuration { sync.configuration }
    var pushName: String { "sync-push:" + identity }
    var pullName: String { "sync-pull:" + identity }

    static func prepare(_ sync: DocumentSync, _ session: ServerSession) async throws -> Replication {
        let server = try await ServerSchema.prepare(session, schema: sync.configuration.schema, create: sync.configuration.createSchema)
        let replica = try sync.persistence.replicaIdentifier()
        let identity = ReplicationIdentity.make(replica: replica, server: server.server, schema: sync.configuration.schema,
                                                kinds: sync.configuration.kinds)
        return Replication(sync: sync, session: session, schema: "\"\(sync.configuration.schema)\"", identity: identity,
                           purgeRecords: server.purges)
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
            let next = history.adding(page.lastSequence)
            let sent = try await retryingConflicts {
                try await session.transaction {
                    let sent = try await send(page.documents)
                    try await setServerCheckpoint("push", next)
                    return sent
                }
            }
            try persistence.setCheckpoint(next.description, for: pushName)
            report.pushedDocuments += sent.documents
            report.pushedRevisions += sent.revisions
            position = page.lastSequence
            history = next
            if !page.hasMore { return }
        }
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
            SELECT count(pg_advisory_xact_lock(hashtext(\("document_sync:" + configuration.schema)), s.k))
            FROM (SELECT DISTINCT hashtext(d) AS k FROM unnest(\(identifiers)::text[]) AS d ORDER BY k) AS s
            """)
    }

    /// One server node of a document's revision tree, as a push reads it.
    struct ServerNode {
        let revision: String
        let generation: Int64
        let leaf: Bool
    }

    /// Inside a push's transaction: locks the documents, reads their trees, and inserts the leaves the
    /// server lacks (with their ancestry), unless a leaf is older than the tree's horizon (see
    /// ``insert(_:stems:newest:)``). Returns the documents and revisions it sent.
    func send(_ documents: [OutgoingDocument]) async throws -> (documents: Int, revisions: Int) {
        guard !documents.isEmpty else { return (0, 0) }
        try await lockDocuments(documents.map(\.identifier))
        let rows = try await session.rows("""
            SELECT document, revision, generation::int8, leaf FROM \(unescaped: schema).revisions
            WHERE document = ANY(\(documents.map(\.identifier))::text[])
            """, as: (String, String, Int64, Bool).self)
        var present = Set<String>()
        var newest: [String: Int64] = [:]
        for row in rows {
            present.insert(row.0 + "\u{0}" + row.1)
            if row.3 { newest[row.0] = max(newest[row.0] ?? 0, row.2) }
        }
        let limit = Int64(max(1, configuration.revisionHistoryLimit))
        var outgoing: [OutgoingDocument] = []
        var stems: [String: Int64] = [:]
        var revisions = 0
        for document in documents {
            let leaves = document.leaves.filter { leaf in
                guard !present.contains(document.identifier + "\u{0}" + leaf.revision) else { return false }
                let generation = Int64(Revision.generation(of: leaf.revision) ?? 1)
                // Past the horizon of the server's newest leaf: superseded already (pruned or never kept).
                return generation > (newest[document.identifier] ?? 0) - limit
            }
            guard !leaves.isEmpty else { continue }
            for leaf in leaves {
                // An ancestry cut short whose oldest entry the server does not know either: what lies
                // below it cannot be compared, so it is superseded (RevisionTree.insert does the same).
                if let oldest = leaf.ancestors.last, let generation = Revision.generation(of: oldest), generation > 1,
                   !present.contains(document.identifier + "\u{0}" + oldest) {
                    stems[document.identifier] = max(stems[document.identifier] ?? 0, Int64(generation))
                }
            }
            revisions += leaves.count
            outgoing.append(OutgoingDocument(identifier: document.identifier, kind: document.kind, leaves: leaves))
        }
        guard !outgoing.isEmpty else { return (0, 0) }
        let touched = try await insert(outgoing, stems: stems, newest: newest)
        return (touched, revisions)
    }

    /// Inserts the leaves with their ancestry, updates the leaf flags, removes what is superseded or
    /// past the history limit, and gives each touched document a new feed position from the counter row
    /// (taken last, so the lock is held briefly). Returns how many documents gained a revision.
    func insert(_ documents: [OutgoingDocument], stems: [String: Int64], newest: [String: Int64]) async throws -> Int {
        var leaf = (document: [String](), revision: [String](), parent: [String](), generation: [Int64](),
                    deleted: [Bool](), body: [String](), ancestors: [String]())
        var inner = (document: [String](), revision: [String](), parent: [String](), generation: [Int64]())
        var deepest: Int64 = 0
        for document in documents {
            for revision in document.leaves {
                let generation = Int64(Revision.generation(of: revision.revision) ?? 1)
                deepest = max(deepest, generation)
                leaf.document.append(document.identifier)
                leaf.revision.append(revision.revision)
                leaf.parent.append(revision.ancestors.first ?? "")
                leaf.generation.append(generation)
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
        guard !touched.isEmpty else { return 0 }
        let kindOf = Dictionary(documents.map { ($0.identifier, $0.kind) }, uniquingKeysWith: { a, _ in a })
        let kinds = touched.map { kindOf[$0] ?? "" }
        if !inner.document.isEmpty {
            // Every ancestor sent is an inner node now: it keeps no body.
            try await session.execute("""
                UPDATE \(unescaped: s).revisions AS r SET leaf = false, body = NULL, ancestors = NULL
                FROM unnest(\(inner.document)::text[], \(inner.revision)::text[]) AS q(d, r)
                WHERE r.document = q.d AND r.revision = q.r AND r.leaf
                """)
        }
        let cut = touched.compactMap { id in stems[id].map { (id, $0) } }
        if !cut.isEmpty {
            try await session.execute("""
                DELETE FROM \(unescaped: s).revisions AS r USING unnest(\(cut.map(\.0))::text[], \(cut.map(\.1))::int8[]) AS q(d, g)
                WHERE r.document = q.d AND r.generation < q.g
                """)
        }
        let limit = Int64(max(1, configuration.revisionHistoryLimit))
        if deepest > limit || touched.contains(where: { (newest[$0] ?? 0) > limit }) {
            // The history limit below each tree's newest leaf, leaves included: a branch that far
            // behind is superseded (every replica prunes by the same rule).
            try await session.execute("""
                DELETE FROM \(unescaped: s).revisions AS r USING (
                    SELECT document, max(generation) AS g FROM \(unescaped: s).revisions
                    WHERE document = ANY(\(touched)::text[]) AND leaf GROUP BY document) AS m
                WHERE r.document = m.document AND r.generation <= m.g - \(limit)
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
            SELECT pg_notify(\(NotificationChannel.name(schema: configuration.schema)),
                             (SELECT value FROM counter)::text || ' ' || pg_backend_pid()::text),
                   (SELECT count(*) FROM upserted)
            """)
        return touched.count
    }
}

/// The `LISTEN`/`NOTIFY` channel a schema's pushes announce themselves on. The payload is the feed
/// counter after the push and the pushing connection's backend process id, separated by a space.
enum NotificationChannel {
    static func name(schema: String) -> String { "document_sync_" + schema }

    /// Whether a payload announces a push made on the connection served by backend `pid`.
    static func isOwn(_ payload: String, backendPID pid: Int32) -> Bool {
        payload.split(separator: " ").last.flatMap { Int32($0) } == pid && payload.contains(" ")
    }
}
