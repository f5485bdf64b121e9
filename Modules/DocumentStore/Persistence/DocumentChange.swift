import Foundation
import GRDB
import SQLiteSupport
import GRDBSQLite

/// One entry of the change feed: a revision written, in commit order.
///
/// Read the feed with ``Persistence/changes(since:limit:)`` and keep the last sequence seen, to
/// process every save and delete once (an indexer, an export, a replicator):
///
/// ```swift
/// var last: Int64 = 0
/// while true {
///     let batch = try persistence.changes(since: last, limit: 500)
///     guard let end = batch.last else { break }
///     for change in batch where !change.deleted { reindex(change.identifier) }
///     last = end.sequence
/// }
/// ```
public struct DocumentChange: Sendable, Equatable, CustomStringConvertible {
    /// The feed position (increasing; each written revision has its own).
    public let sequence: Int64
    /// The document's identifier.
    public let identifier: String
    /// The revision written.
    public let revision: String
    /// Whether the revision is a deletion.
    public let deleted: Bool

    public var description: String { "\(sequence) \(identifier) \(revision)\(deleted ? " deleted" : "")" }
}

extension Persistence {
    /// The revisions written after `sequence`, in commit order: every save and delete, from every
    /// process, each once. Pass the last entry's sequence to continue.
    ///
    /// - Parameters:
    ///   - sequence: The last sequence already seen; 0 reads from the start.
    ///   - limit: The most entries to return.
    /// - Returns: Up to `limit` entries with greater sequences, in increasing order; empty at the end.
    /// - Throws: ``DocumentStoreError/busyTimeout(file:seconds:)``, ``DocumentStoreError/corruptDatabase(file:cause:)``,
    ///   ``DocumentStoreError/sqlite(code:message:sql:)`` or ``DocumentStoreError/databaseDeleted(file:)``
    ///   when the file cannot be read.
    public func changes(since sequence: Int64 = 0, limit: Int = 1000) throws(DocumentStoreError) -> [DocumentChange] {
        try reading { db in
            let select = try StoreStatement(cached: """
                SELECT c.sequence, d.id, c.revision, c.deleted FROM changes AS c JOIN documents AS d ON d.number = c.document
                WHERE c.sequence > ? ORDER BY c.sequence LIMIT ?
                """, in: db)
            defer { select.reset() }
            select.bind(sequence, at: 1)
            select.bind(Int64(max(0, limit)), at: 2)
            var changes: [DocumentChange] = []
            while try select.step() {
                changes.append(DocumentChange(sequence: select.int64(at: 0), identifier: select.text(at: 1) ?? "",
                                              revision: select.text(at: 2) ?? "", deleted: select.int64(at: 3) != 0))
            }
            return changes
        }
    }

    /// The sequence of the last change written (0 for an empty store).
    ///
    /// A reader that starts now and wants only later changes passes it to ``changes(since:limit:)``.
    ///
    /// - Throws: ``DocumentStoreError/busyTimeout(file:seconds:)``, ``DocumentStoreError/corruptDatabase(file:cause:)``,
    ///   ``DocumentStoreError/sqlite(code:message:sql:)`` or ``DocumentStoreError/databaseDeleted(file:)``
    ///   when the file cannot be read.
    public func lastSequence() throws(DocumentStoreError) -> Int64 {
        try reading { db in
            let select = try StoreStatement(cached: "SELECT coalesce(max(sequence), 0) FROM changes", in: db)
            defer { select.reset() }
            return try select.step() ? select.int64(at: 0) : 0
        }
    }
}
