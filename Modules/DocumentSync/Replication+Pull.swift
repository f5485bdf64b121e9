import DocumentStore
import Foundation
import PostgresNIO

extension Replication {
    /// Fetches the server's feed after the pull checkpoint, batch by batch, and inserts the revisions
    /// this store lacks as they are; each batch and the local checkpoint commit in one local transaction.
    /// Starts over from zero when the server purged tombstones past the checkpoint, and then purges the
    /// local documents the server no longer has (unless they hold changes not pushed yet).
    func pull(_ report: inout DocumentSync.Report) async throws {
        var (position, history) = try await resume("pull")
        let horizon = Int64(try await session.single(String.self, "SELECT value FROM \(unescaped: schema).meta WHERE key = 'purge_horizon'") ?? "0") ?? 0
        let full = position > 0 && position < horizon
        if full {
            position = 0
            report.fullResync = true
        }
        var onServer = Set<String>()
        while true {
            try Task.checkCancellation()
            let (rows, purges) = try await page(after: position)
            let pageIsFull = Set(rows.map(\.sequence)).count >= configuration.batchSize
            let last = max(rows.last?.sequence ?? 0, purges.last?.sequence ?? 0)
            guard last > position else { break }
            // Purge records first: a document made again after its purge comes later in the feed.
            if !purges.isEmpty { report.purgedLocally += try await purgeSettled(purges.map(\.identifier)) }
            if full { for row in rows { onServer.insert(row.identifier) } }
            let known = try persistence.knownRevisions(rows.map { ($0.identifier, $0.revision) })
            var revisions: [ForeignRevision] = []
            var conflicted = Set<String>()
            var leavesByDocument: [String: Int] = [:]
            for row in rows {
                leavesByDocument[row.identifier, default: 0] += row.deleted ? 0 : 1
                if leavesByDocument[row.identifier]! > 1 { conflicted.insert(row.identifier) }
                guard !known.contains(row.identifier + "\u{0}" + row.revision) else { continue }
                revisions.append(try row.verified())
            }
            let next = history.adding(last)
            let (inserted, pushed) = try apply(revisions, pull: next)
            report.pulledRevisions += inserted
            try await setServerCheckpoint("pull", next, waitForDisk: false)
            if let pushed { try await setServerCheckpoint("push", pushed) }
            if let resolver = configuration.conflictResolver {
                report.resolvedConflicts += try resolve(conflicted.sorted(), with: resolver)
            }
            position = last
            history = next
            if !pageIsFull { break }
        }
        if full { report.purgedLocally += try await purgeAbsent(onServer) }
    }

    /// Removes the local copies of documents the server purged, unless this replica has something of
    /// them the server lacks: a live leaf (the server purges only documents without one, so it is this
    /// replica's own, not pushed yet or pushed after the purge) or a change after the push checkpoint.
    /// Those stay, and go up with the next push.
    private func purgeSettled(_ identifiers: [String]) async throws -> Int {
        let pushed = try await resume("push").position
        return try persistence.purgeDeleted(identifiers, unchangedAfter: pushed)
    }

    /// Inserts a batch and the pull checkpoint in one local transaction. When every earlier local change
    /// was already pushed, the push checkpoint moves past the batch's feed entries too (in the same
    /// transaction), so revisions that came from the server are not offered back to it; the returned
    /// push history is then written to the server's copy.
    private func apply(_ revisions: [ForeignRevision], pull next: CheckpointHistory) throws -> (Int, CheckpointHistory?) {
        let pushHistory = CheckpointHistory(try persistence.checkpoint(pushName))
        return try persistence.transaction { store in
            let before = try store.lastSequence()
            var inserted = 0
            for revision in revisions where try store.insertForeign(revision) { inserted += 1 }
            try store.setCheckpoint(next.description, for: pullName)
            guard inserted > 0, pushHistory.entries.first?.position == before else { return (inserted, nil) }
            let pushed = pushHistory.adding(try store.lastSequence())
            try store.setCheckpoint(pushed.description, for: pushName)
            return (inserted, pushed)
        }
    }

    /// One leaf of the server's feed.
    struct FeedRow {
        let sequence: Int64
        let identifier: String
        let kind: String
        let revision: String
        let deleted: Bool
        let body: String?
        let ancestors: [String]

        /// The revision to insert, after checking that its digest is the digest of its parent, flag and body.
        func verified() throws -> ForeignRevision {
            let json: JSON?
            do {
                json = deleted ? JSON?.none : try JSON(parsing: body ?? "", identifier: identifier)
            } catch {
                throw DocumentSyncError.invalidRevision(identifier: identifier, revision: revision,
                                                        reason: "its body on the server is not JSON (\(error))")
            }
            let canonical = json?.canonicalText ?? "{}"
            guard Revision.next(after: ancestors.first, canonicalBody: canonical, deleted: deleted) == revision else {
                throw DocumentSyncError.invalidRevision(identifier: identifier, revision: revision,
                                                        reason: "its digest does not match its parent and body on the server")
            }
            return ForeignRevision(identifier: identifier, kind: kind, revision: revision, ancestors: ancestors,
                                   deleted: deleted, body: json, canonicalBody: canonical)
        }
    }

    /// The leaves of the next `batchSize` documents of the server's feed after `position`, and the
    /// purge records up to the last of them (all the rest on the last page). Both are read in one
    /// snapshot (a read-only repeatable-read transaction): a purge committed between two separate reads
    /// could otherwise move the checkpoint past a document committed just before it.
    private func page(after position: Int64) async throws -> (rows: [FeedRow], purges: [PurgeRecord]) {
        guard purgeRecords else { return (try await documentPage(after: position), []) }
        return try await session.transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY") {
            let rows = try await documentPage(after: position)
            let full = Set(rows.map(\.sequence)).count >= configuration.batchSize
            let upper: Int64? = full ? rows.last?.sequence : nil
            let kinds: [String]? = configuration.kinds.map { Array($0).sorted() }
            let purges = try await session.rows("""
                SELECT sequence, id FROM \(unescaped: schema).purges
                WHERE sequence > \(position) AND (\(upper)::int8 IS NULL OR sequence <= \(upper)::int8)
                  AND (\(kinds)::text[] IS NULL OR kind = ANY(\(kinds)::text[]))
                ORDER BY sequence
                """, as: (Int64, String).self).map { PurgeRecord(sequence: $0.0, identifier: $0.1) }
            return (rows, purges)
        }
    }

    /// One purge record of the server's feed.
    struct PurgeRecord: Sendable {
        let sequence: Int64
        let identifier: String
    }

    /// The leaves of the next `batchSize` documents of the server's feed after `position`.
    private func documentPage(after position: Int64) async throws -> [FeedRow] {
        let kinds: [String]? = configuration.kinds.map { Array($0).sorted() }
        let rows = try await session.rows("""
            SELECT d.sequence, d.id, d.kind, r.revision, r.deleted, r.body, coalesce(array_to_string(r.ancestors, ' '), '')
            FROM (SELECT id, kind, sequence FROM \(unescaped: schema).documents
                  WHERE sequence > \(position) AND (\(kinds)::text[] IS NULL OR kind = ANY(\(kinds)::text[]))
                  ORDER BY sequence LIMIT \(Int64(configuration.batchSize))) AS d
            JOIN \(unescaped: schema).revisions AS r ON r.document = d.id AND r.leaf
            ORDER BY d.sequence, r.revision
            """, as: (Int64, String, String, String, Bool, String?, String).self)
        return rows.map { row in
            FeedRow(sequence: row.0, identifier: row.1, kind: row.2, revision: row.3, deleted: row.4, body: row.5,
                    ancestors: row.6.split(separator: " ").map(String.init))
        }
    }

    /// Asks the resolver about each conflicted document and applies its answer; returns how many it ended.
    ///
    /// The answer is written only if the document's leaves are still the ones the resolver saw: when a
    /// save (or another pull) committed meanwhile, the branches are read again and the resolver asked
    /// again, so the merge never overwrites a revision it did not see.
    private func resolve(_ identifiers: [String], with resolver: @Sendable (DocumentSync.Conflict) -> DocumentSync.Resolution) throws -> Int {
        var resolved = 0
        for identifier in identifiers {
            for _ in 0..<Self.resolveAttempts {
                let branches = try persistence.branches(of: identifier)
                let live = branches.filter { !$0.deleted }
                guard live.count > 1, let current = live.first(where: \.isCurrent), let body = current.body,
                      let kind = try persistence.snapshot(identifier)?.kind else { break }
                let conflict = DocumentSync.Conflict(identifier: identifier, kind: kind, current: body,
                                                     others: live.filter { !$0.isCurrent }.compactMap(\.body))
                let answer = resolver(conflict)
                if case .keepBranches = answer { break }
                let merged: JSON? = switch answer {
                case .keepCurrent: body
                case .merge(let value): value
                case .delete, .keepBranches: JSON?.none
                }
                let seen = Set(branches.map(\.revision))
                if try persistence.resolveConflict(identifier, merged: merged, expectedLeaves: seen) != nil {
                    resolved += 1
                    break
                }
            }
        }
        return resolved
    }

    /// How many times a conflict is read and resolved again when saves keep changing it meanwhile (the
    /// next pull tries again after that).
    static let resolveAttempts = 5

    /// After a full resynchronization: purges the local documents (of the replicated kinds) the server no
    /// longer has, except those changed after the push checkpoint (they are new here and go up next time).
    private func purgeAbsent(_ onServer: Set<String>) async throws -> Int {
        let pushed = try await resume("push").position
        let gone = try persistence.allIdentifiers().filter { document in
            !onServer.contains(document.identifier) && document.lastSequence <= pushed
                && (configuration.kinds?.contains(document.kind) ?? true)
        }.map(\.identifier)
        if !gone.isEmpty { try persistence.purge(gone) }
        return gone.count
    }

    /// Deletes from the server the documents whose winner is a deletion older than the retention, and
    /// moves the purge horizon. Each document is locked as a push locks it and checked again under the
    /// lock, so a document that has a live leaf (committed by a push meanwhile) is never removed.
    func purgeServerTombstones() async throws {
        guard let retention = configuration.tombstoneRetention else { return }
        let seconds = Double(retention.components.seconds) + Double(retention.components.attoseconds) / 1e18
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
