import DocumentStore
import Foundation
import GRDB

/// What tests read of a store's tables directly, through a connection of their own on its file (the
/// product has no such hooks): row counts, the feed's soundness.
extension Persistence {
    /// The number of rows in one of the store's tables (`documents`, `revisions`, `changes`, `checkpoints`).
    public func rawCount(_ table: String) throws -> Int {
        precondition(["documents", "revisions", "changes", "checkpoints"].contains(table), "\(table) is not a table of the store")
        return try inspect { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0 }
    }

    /// How many feed entries repeat a (document, revision) pair already in the feed (0 in a sound store).
    public func repeatedFeedEntries() throws -> Int {
        try inspect { db in
            try Int.fetchOne(db, sql: "SELECT count(*) - (SELECT count(*) FROM (SELECT DISTINCT document, revision FROM changes)) FROM changes") ?? 0
        }
    }

    /// Whether the feed ever listed `revision` of document `identifier` (it keeps entries the tree has
    /// pruned since).
    public func feedLists(_ identifier: String, _ revision: String) throws -> Bool {
        try inspect { db in
            try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM changes WHERE revision = ? AND document = (SELECT number FROM documents WHERE id = ?))
                """, arguments: [revision, identifier]) ?? false
        }
    }

    /// Runs `body` on a read-only connection of its own to the store's file (it sees the last commit).
    private func inspect<T>(_ body: (Database) throws -> T) throws -> T {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: self.configuration.url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read(body)
    }
}
