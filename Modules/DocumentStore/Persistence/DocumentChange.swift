import Foundation
import GRDB
import SQLiteSupport
import GRDBSQLite

/// One entry of the change feed: a revision written, in commit order.
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
    public func lastSequence() throws(DocumentStoreError) -> Int64 {
        try reading { db in
            let select = try StoreStatement(cached: "SELECT coalesce(max(sequence), 0) FROM changes", in: db)
            defer { select.reset() }
            return try select.step() ? select.int64(at: 0) : 0
        }
    }
}
