import DocumentStore
import Foundation
import PostgresNIO

extension PostgresReplicationServer {
    /// Inside a transaction: inserts the leaves with their ancestry, updates the leaf flags, removes
    /// what is superseded or past the history limit, and gives each touched document a new feed position
    /// from the counter row (taken last, so the lock is held briefly). Returns how many documents gained
    /// a revision.
    func insertLeaves(_ missing: MissingLeaves, historyLimit: Int) async throws -> Int {
        if access { return try await insertLeavesChecked(missing, historyLimit: historyLimit) }
        let (documents, stems, newest) = (missing.documents, missing.stems, missing.newest)
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
        let limit = Int64(max(1, historyLimit))
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
            SELECT pg_notify(\(NotificationChannel.name(schema: schemaName)),
                             (SELECT value FROM counter)::text || ' ' || pg_backend_pid()::text),
                   (SELECT count(*) FROM upserted)
            """)
        return touched.count
    }
}
