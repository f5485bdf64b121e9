import DocumentStore
import Foundation
import PostgresNIO

extension PostgresReplicationServer {
    package func purgeHorizon() async throws -> Int64 {
        if access { return try await purgeHorizonChecked() }
        return Int64(try await session.single(String.self, "SELECT value FROM \(unescaped: schema).meta WHERE key = 'purge_horizon'") ?? "0") ?? 0
    }

    package func purged(among identifiers: [String]) async throws -> Set<String> {
        guard purgeRecords, !identifiers.isEmpty else { return [] }
        if access { return try await purgedChecked(among: identifiers) }
        return Set(try await session.rows("""
            SELECT DISTINCT id FROM \(unescaped: schema).purges WHERE id = ANY(\(identifiers)::text[])
            """, as: String.self))
    }

    package func revisions(of identifiers: [String]) async throws -> Set<String> {
        guard !identifiers.isEmpty else { return [] }
        if access { return try await revisionsChecked(of: identifiers) }
        let rows = try await session.rows("""
            SELECT document, revision FROM \(unescaped: schema).revisions WHERE document = ANY(\(identifiers)::text[])
            """, as: (String, String).self)
        return Set(rows.map { $0.0 + "\u{0}" + $0.1 })
    }

    /// Both parts are read in one snapshot (a read-only repeatable-read transaction): a purge committed
    /// between two separate reads could otherwise move the checkpoint past a document committed just
    /// before it. A schema without `purges` has no records to read.
    package func feedPage(after position: Int64, limit: Int, kinds: Set<String>?) async throws -> FeedPage {
        guard purgeRecords else { return FeedPage(rows: try await documentPage(after: position, limit: limit, kinds: kinds), purges: []) }
        return try await session.transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY") {
            let rows = try await documentPage(after: position, limit: limit, kinds: kinds)
            let full = Set(rows.map(\.sequence)).count >= limit
            let upper: Int64? = full ? rows.last?.sequence : nil
            let kinds: [String]? = kinds.map { Array($0).sorted() }
            if access { return FeedPage(rows: rows, purges: try await purgesChecked(after: position, upTo: upper, kinds: kinds)) }
            let purges = try await session.rows("""
                SELECT sequence, id FROM \(unescaped: schema).purges
                WHERE sequence > \(position) AND (\(upper)::int8 IS NULL OR sequence <= \(upper)::int8)
                  AND (\(kinds)::text[] IS NULL OR kind = ANY(\(kinds)::text[]))
                ORDER BY sequence
                """, as: (Int64, String).self).map { FeedPage.Purge(sequence: $0.0, identifier: $0.1) }
            return FeedPage(rows: rows, purges: purges)
        }
    }

    /// The leaves of the next `limit` documents of the server's feed after `position`.
    private func documentPage(after position: Int64, limit: Int, kinds: Set<String>?) async throws -> [FeedPage.Row] {
        let kinds: [String]? = kinds.map { Array($0).sorted() }
        if access { return try await documentPageChecked(after: position, limit: limit, kinds: kinds) }
        let rows = try await session.rows("""
            SELECT d.sequence, d.id, d.kind, r.revision, r.deleted, r.body, coalesce(array_to_string(r.ancestors, ' '), '')
            FROM (SELECT id, kind, sequence FROM \(unescaped: schema).documents
                  WHERE sequence > \(position) AND (\(kinds)::text[] IS NULL OR kind = ANY(\(kinds)::text[]))
                  ORDER BY sequence LIMIT \(Int64(limit))) AS d
            JOIN \(unescaped: schema).revisions AS r ON r.document = d.id AND r.leaf
            ORDER BY d.sequence, r.revision
            """, as: (Int64, String, String, String, Bool, String?, String).self)
        return rows.map { row in
            FeedPage.Row(sequence: row.0, identifier: row.1, kind: row.2, revision: row.3, deleted: row.4, body: row.5,
                         ancestors: row.6.split(separator: " ").map(String.init))
        }
    }

    /// Each document is locked as a push locks it and checked again under the lock, so a document that
    /// has a live leaf (committed by a push meanwhile) is never removed.
    package func purgeTombstones(olderThan retention: Duration) async throws {
        let seconds = Double(retention.components.seconds) + Double(retention.components.attoseconds) / 1e18
        if access { return try await purgeTombstonesChecked(olderThan: seconds) }
        try await retryingConflicts {
            try await session.transaction {
                let candidates = try await session.rows("""
                    SELECT id FROM \(unescaped: schema).documents WHERE deleted AND changed_at < now() - make_interval(secs => \(seconds))
                    ORDER BY id LIMIT 10000
                    """, as: String.self)
                guard !candidates.isEmpty else { return }
                try await lockDocuments(candidates)
                // Each removed document gets a purge record at a feed position of its own (from the
                // counter, taken last as a push takes it), so replicas remove their copies in feed order.
                let record = purgeRecords ? """
                    , counter AS (UPDATE \(schema).feed SET value = value + (SELECT count(*) FROM gone) RETURNING value),
                    recorded AS (
                        INSERT INTO \(schema).purges(sequence, id, kind)
                        SELECT (SELECT value FROM counter) - (SELECT count(*) FROM gone) + row_number() OVER (ORDER BY id), id, kind FROM gone)
                    """ : ""
                try await session.execute("""
                    WITH gone AS (
                        DELETE FROM \(unescaped: schema).documents AS d
                        WHERE d.id = ANY(\(candidates)::text[]) AND d.deleted AND d.changed_at < now() - make_interval(secs => \(seconds))
                          AND NOT EXISTS (SELECT 1 FROM \(unescaped: schema).revisions AS r WHERE r.document = d.id AND r.leaf AND NOT r.deleted)
                        RETURNING id, kind, sequence),
                    tree AS (DELETE FROM \(unescaped: schema).revisions WHERE document IN (SELECT id FROM gone))
                    \(unescaped: record)
                    UPDATE \(unescaped: schema).meta SET value = greatest(value::bigint, coalesce((SELECT max(sequence) FROM gone), 0))::text
                    WHERE key = 'purge_horizon'
                    """)
            }
        }
    }
}
