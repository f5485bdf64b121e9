import Foundation
import GRDB

/// What a replicator needs beyond the public API (package access: `DocumentSync` uses it).
extension Persistence {
    /// Adds a revision made by another replica, with its ancestry, in the current transaction (or one
    /// of its own), and makes the tree's winner current. `false` when the revision was already known.
    ///
    /// An object loaded before keeps its revision: saving it after the winner changed is a conflict.
    @discardableResult
    package func insertForeign(_ revision: ForeignRevision) throws -> Bool {
        try transaction { persistence in
            let context = persistence.currentContext()!
            let inserted = try RevisionTree(db: context.db).insert(revision, context: context)
            if inserted { context.didWrite = true }
            return inserted
        }
    }

    /// The leaves of a document's revision tree: one when it has no conflict, more when replicas
    /// edited it concurrently (the live ones other than the current one are the conflict's other
    /// sides); empty when the store has no such document.
    ///
    /// - Parameter identifier: The document's identifier.
    /// - Throws: ``DocumentStoreError`` when the store cannot be read.
    public func branches(of identifier: String) throws(DocumentStoreError) -> [RevisionBranch] {
        try reading { db in try RevisionTree(db: db).branches(identifier: identifier) }
    }

    /// The ancestry of a revision of a document, itself first then its parent and so on, as far as the
    /// tree keeps it (``PersistenceConfiguration/revisionHistoryLimit`` generations); empty when the
    /// tree does not have that revision.
    ///
    /// - Parameters:
    ///   - identifier: The document's identifier.
    ///   - revision: A revision of it, such as a ``RevisionBranch/revision``.
    /// - Throws: ``DocumentStoreError`` when the store cannot be read.
    public func history(of identifier: String, revision: String) throws(DocumentStoreError) -> [String] {
        try reading { db in try RevisionTree(db: db).history(identifier: identifier, revision: revision) }
    }

    /// Writes (or with `nil` removes) a named checkpoint, in the current transaction so it commits with
    /// the documents it describes.
    package func setCheckpoint(_ value: String?, for name: String) throws {
        try transaction { persistence in
            let db = persistence.currentContext()!.db
            if let value {
                try db.execute(sql: "INSERT INTO checkpoints(name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                               arguments: [name, value])
            } else {
                try db.execute(sql: "DELETE FROM checkpoints WHERE name = ?", arguments: [name])
            }
        }
    }

    /// A named checkpoint's value.
    package func checkpoint(_ name: String) throws(DocumentStoreError) -> String? {
        try reading { db in try String.fetchOne(db, sql: "SELECT value FROM checkpoints WHERE name = ?", arguments: [name]) }
    }
}

extension Persistence {
    /// The number of rows in one of the store's tables (`documents`, `revisions`, `changes`), for tests.
    package func rawCount(_ table: String) throws(DocumentStoreError) -> Int {
        guard ["documents", "revisions", "changes", "checkpoints"].contains(table) else {
            throw .misuse("\(table) is not a table of the store")
        }
        return try reading { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0 }
    }
}

extension Persistence {
    /// The number of live objects in the identity map, for tests.
    package var liveObjectCount: Int { identityMap.liveCount }

    /// How many feed entries repeat a (document, revision) pair already in the feed (0 in a sound store), for tests.
    package func repeatedFeedEntries() throws(DocumentStoreError) -> Int {
        try reading { db in
            try Int.fetchOne(db, sql: "SELECT count(*) - (SELECT count(*) FROM (SELECT DISTINCT document, revision FROM changes)) FROM changes") ?? 0
        }
    }

    /// Whether the feed ever listed `revision` of document `identifier` (it keeps entries the tree
    /// has pruned since), for tests.
    package func feedLists(_ identifier: String, _ revision: String) throws(DocumentStoreError) -> Bool {
        try reading { db in
            try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM changes WHERE revision = ? AND document = (SELECT number FROM documents WHERE id = ?))
                """, arguments: [revision, identifier]) ?? false
        }
    }
}
