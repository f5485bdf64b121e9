import DocumentStore
import Foundation
import PostgresNIO

/// The server's operations on a schema with access control on (``ServerAccess``): each one calls the
/// schema's functions, which see only the caller's channels and check everything they accept.
extension PostgresReplicationServer {
    /// Inside a push's transaction: sends the missing leaves to `insert_leaves`, which checks each one
    /// (its revision against its parent and body, its ancestry, its body, the caller's write grants)
    /// before writing any, and refuses the whole batch otherwise.
    func insertLeavesChecked(_ missing: MissingLeaves, historyLimit: Int) async throws -> Int {
        var documents = [String](), kinds = [String](), revisions = [String](), deleted = [Bool]()
        var bodies = [String](), ancestors = [String]()
        for document in missing.documents {
            for leaf in document.leaves {
                documents.append(document.identifier)
                kinds.append(document.kind)
                revisions.append(leaf.revision)
                deleted.append(leaf.deleted)
                bodies.append(leaf.body)
                ancestors.append(leaf.ancestors.joined(separator: " "))
            }
        }
        let stems = missing.stems.sorted { $0.key < $1.key }
        let limit = Int32(clamping: max(1, historyLimit))
        return Int(try await session.single(Int32.self, """
            SELECT \(unescaped: schema).insert_leaves(\(documents)::text[], \(kinds)::text[], \(revisions)::text[],
                \(deleted)::boolean[], \(bodies)::text[], \(ancestors)::text[], \(stems.map(\.key))::text[],
                \(stems.map(\.value))::int8[], \(limit)::int4)
            """) ?? 0)
    }

    /// The documents of the page the caller may read.
    func documentPageChecked(after position: Int64, limit: Int, kinds: [String]?) async throws -> [FeedPage.Row] {
        let rows = try await session.rows("""
            SELECT sequence, id, kind, revision, deleted, body, ancestors
            FROM \(unescaped: schema).feed_page(\(position)::int8, \(Int32(clamping: limit))::int4, \(kinds)::text[])
            """, as: (Int64, String, String, String, Bool, String?, String).self)
        return rows.map { row in
            FeedPage.Row(sequence: row.0, identifier: row.1, kind: row.2, revision: row.3, deleted: row.4, body: row.5,
                         ancestors: row.6.split(separator: " ").map(String.init))
        }
    }

    /// The purge records up to `upper` of documents the caller could read.
    func purgesChecked(after position: Int64, upTo upper: Int64?, kinds: [String]?) async throws -> [FeedPage.Purge] {
        try await session.rows("""
            SELECT sequence, id FROM \(unescaped: schema).feed_purges(\(position)::int8, \(upper)::int8, \(kinds)::text[])
            """, as: (Int64, String).self).map { FeedPage.Purge(sequence: $0.0, identifier: $0.1) }
    }

    func purgeHorizonChecked() async throws -> Int64 {
        Int64(try await session.single(String.self, """
            SELECT value FROM \(unescaped: schema).server_info() WHERE key = 'purge_horizon'
            """) ?? "0") ?? 0
    }

    func revisionsChecked(of identifiers: [String]) async throws -> Set<String> {
        let rows = try await session.rows("""
            SELECT document, revision FROM \(unescaped: schema).revisions_of(\(identifiers)::text[])
            """, as: (String, String).self)
        return Set(rows.map { $0.0 + "\u{0}" + $0.1 })
    }

    func purgedChecked(among identifiers: [String]) async throws -> Set<String> {
        Set(try await session.rows("SELECT id FROM \(unescaped: schema).purged_among(\(identifiers)::text[])", as: String.self))
    }

    package func accessEpoch() async throws -> String? {
        guard access else { return nil }
        return try await session.single(String.self, "SELECT \(unescaped: schema).access_epoch()")
    }

    /// Purges through the schema's function, which does so only for a role granted every channel.
    func purgeTombstonesChecked(olderThan seconds: Double) async throws {
        try await retryingConflicts {
            try await session.transaction {
                try await session.execute("SELECT \(unescaped: schema).purge_tombstones(\(seconds)::float8)")
            }
        }
    }
}
