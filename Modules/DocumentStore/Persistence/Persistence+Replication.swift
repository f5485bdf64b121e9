import Foundation
import GRDB
import SQLiteSupport
import GRDBSQLite

// What DocumentSync needs of a store beyond the public API, in one place: the local feed grouped by
// document (`outgoing`), which revisions are known, the replica's identity, purges, conflict
// resolution, foreign revisions, branches and checkpoints (package access, except `branches(of:)`
// and `history(of:revision:)`, which are public).
extension Persistence {
    /// The documents changed after `sequence`, at most `limit` feed entries, each document once with
    /// all its current leaves; documents whose kind is not in `kinds` (when given) are left out.
    package func outgoing(since sequence: Int64, limit: Int, kinds: Set<String>?) throws(DocumentStoreError) -> OutgoingPage {
        try reading { db in
            let feed = try StoreStatement(cached: "SELECT sequence, document FROM changes WHERE sequence > ? ORDER BY sequence LIMIT ?", in: db)
            feed.bind(sequence, at: 1)
            feed.bind(Int64(max(1, limit)), at: 2)
            var numbers: [Int64] = []
            var seen = Set<Int64>()
            var last = sequence
            var rows = 0
            while try feed.step() {
                last = feed.int64(at: 0)
                rows += 1
                if seen.insert(feed.int64(at: 1)).inserted { numbers.append(feed.int64(at: 1)) }
            }
            feed.reset()
            let tree = RevisionTree(db: db)
            var documents: [OutgoingDocument] = []
            documents.reserveCapacity(numbers.count)
            let current = try StoreStatement(cached: "SELECT id, kind, revision, body FROM documents WHERE number = ?", in: db)
            for number in numbers {
                current.bind(number, at: 1)
                guard try current.step() else { current.reset(); continue }
                let identifier = current.text(at: 0) ?? ""
                let kind = current.text(at: 1) ?? ""
                let winner = current.text(at: 2) ?? ""
                let winnerBody = current.text(at: 3) ?? "{}"
                current.reset()
                if let kinds, !kinds.contains(kind) { continue }
                let leaves = try tree.leaves(document: number).map { leaf throws(DocumentStoreError) in
                    OutgoingRevision(revision: leaf.revision, deleted: leaf.deleted,
                                     body: leaf.revision == winner ? winnerBody : (leaf.body ?? "{}"),
                                     ancestors: try tree.ancestors(document: number, revision: leaf.revision))
                }
                documents.append(OutgoingDocument(identifier: identifier, kind: kind, leaves: leaves))
            }
            return OutgoingPage(documents: documents, lastSequence: last, hasMore: rows >= max(1, limit))
        }
    }

    /// This store's identity for replication: a UUID made the first time it is asked for and kept in the
    /// store (so a copy of the file is the same replica, and a new file a new one).
    package func replicaIdentifier() throws -> String {
        if let existing = try checkpoint("replica-identifier") { return existing }
        return try transaction { persistence in
            if let raced = try persistence.checkpoint("replica-identifier") { return raced }
            let made = UUID().uuidString.lowercased()
            try persistence.setCheckpoint(made, for: "replica-identifier")
            return made
        }
    }

    /// Removes documents entirely, with their trees and feed entries: a local purge that replication
    /// never sends anywhere.
    package func purge(_ identifiers: [String]) throws {
        guard !identifiers.isEmpty else { return }
        try transaction { persistence in
            try Self.remove(identifiers, in: persistence.currentContext()!)
        }
    }

    /// Purges, of `identifiers`, the documents whose last feed entry is at or before `position`
    /// (nothing changed since the push checkpoint) and that have no live leaf in `serverHolds`
    /// (identifier, a zero character, revision); returns their identifiers. What a replica does with the
    /// server's purge records: everything it has of such a document was on the server, which removed
    /// it; a live leaf the server holds again stays.
    package func purgeSettled(_ identifiers: [String], unchangedAfter position: Int64,
                              keepingLiveLeavesIn serverHolds: Set<String>) throws -> [String] {
        guard !identifiers.isEmpty else { return [] }
        return try transaction { persistence in
            let context = persistence.currentContext()!
            let list = String(decoding: try JSONEncoder().encode(identifiers), as: UTF8.self)
            let settled = try String.fetchAll(context.db, sql: """
                SELECT d.id FROM documents AS d WHERE d.id IN (SELECT value FROM json_each(?))
                AND coalesce((SELECT max(c.sequence) FROM changes AS c WHERE c.document = d.number), 0) <= ?
                """, arguments: [list, position])
            let tree = RevisionTree(db: context.db)
            let gone = try settled.filter { identifier in
                try !tree.branches(identifier: identifier).contains { !$0.deleted && serverHolds.contains(identifier + "\u{0}" + $0.revision) }
            }
            try Self.remove(gone, in: context)
            return gone
        }
    }

    /// Deletes documents with their trees and feed entries, in the caller's transaction.
    private static func remove(_ identifiers: [String], in context: WriteContext) throws {
        guard !identifiers.isEmpty else { return }
        // One statement per table; the feed is found by document through `changes_by_document`.
        let list = String(decoding: try JSONEncoder().encode(identifiers), as: UTF8.self)
        let numbers = "SELECT number FROM documents WHERE id IN (SELECT value FROM json_each(?))"
        let last = try Int64.fetchOne(context.db, sql: "SELECT max(sequence) FROM changes")
        try context.db.execute(sql: "DELETE FROM revisions WHERE document IN (\(numbers))", arguments: [list])
        try context.db.execute(sql: "DELETE FROM changes WHERE document IN (\(numbers))", arguments: [list])
        try context.db.execute(sql: "DELETE FROM documents WHERE id IN (SELECT value FROM json_each(?))", arguments: [list])
        // The feed's positions never go back: SQLite gives a new `changes` row the largest position plus
        // one, so had the removed documents held the largest, the next change would take a position a
        // push checkpoint may have passed already, and never be pushed. A row of document 0 (no
        // document's number: they start at 1) keeps the mark; the feed's readers join documents, or skip
        // numbers without one, and the mark replaces the one before it.
        if let last, try Int64.fetchOne(context.db, sql: "SELECT max(sequence) FROM changes") ?? 0 < last {
            try context.db.execute(sql: "DELETE FROM changes WHERE document = 0")
            try context.db.execute(sql: "INSERT INTO changes(sequence, document, revision, deleted) VALUES (?, 0, '', 1)",
                                   arguments: [last])
        }
        context.didWrite = true
    }

    /// Ends a conflict: every leaf but the current one gets a deletion, and the current one gets a child
    /// with `merged` (a deletion for `nil`). Returns the new current revision, or `nil` when the
    /// document has one leaf or fewer (nothing to resolve), or when `expectedLeaves` is given and the
    /// document's leaves are no longer exactly those (a save or a pull committed since they were read:
    /// the caller reads the branches again instead of overwriting that revision).
    @discardableResult
    package func resolveConflict(_ identifier: String, merged: JSON?, expectedLeaves: Set<String>? = nil) throws -> String? {
        try transaction { persistence in
            let context = persistence.currentContext()!
            let text = try merged.map { value throws(DocumentStoreError) in try CanonicalJSON.checkedText(value, identifier: identifier) }
            return try RevisionTree(db: context.db).resolve(identifier: identifier, mergedText: text,
                                                             expectedLeaves: expectedLeaves, context: context)
        }
    }

    /// The identifiers of every document (deleted ones included) with their kinds, for a full resynchronization.
    package func allIdentifiers() throws(DocumentStoreError) -> [(identifier: String, kind: String, lastSequence: Int64)] {
        try reading { db in
            try Row.fetchAll(db, sql: """
                SELECT d.id, d.kind, coalesce(max(c.sequence), 0) FROM documents AS d
                LEFT JOIN changes AS c ON c.document = d.number GROUP BY d.number
                """).map { (identifier: $0[0], kind: $0[1], lastSequence: $0[2]) }
        }
    }
}

extension Revision {
    /// Whether leaf `a` beats leaf `b` as a document's winner: not deleted beats deleted, then the
    /// higher generation, then the greater digest (byte order). Every replica, and the server's SQL
    /// function, choose with this rule.
    package static func beats(_ a: (revision: String, deleted: Bool), _ b: (revision: String, deleted: Bool)) -> Bool {
        let left = RevisionTree.Leaf(revision: a.revision, generation: Int64(generation(of: a.revision) ?? 0), deleted: a.deleted, body: nil)
        let right = RevisionTree.Leaf(revision: b.revision, generation: Int64(generation(of: b.revision) ?? 0), deleted: b.deleted, body: nil)
        return RevisionTree.beats(left, right)
    }
}

extension Persistence {
    /// Which of the given (document, revision) pairs the store already has in its trees.
    package func knownRevisions(_ pairs: [(identifier: String, revision: String)]) throws(DocumentStoreError) -> Set<String> {
        try reading { db in
            let select = try StoreStatement(cached: """
                SELECT 1 FROM revisions AS r JOIN documents AS d ON d.number = r.document WHERE d.id = ? AND r.revision = ?
                """, in: db)
            var known = Set<String>()
            for pair in pairs {
                select.bind(pair.identifier, at: 1)
                select.bind(pair.revision, at: 2)
                if try select.step() { known.insert(pair.identifier + "\u{0}" + pair.revision) }
                select.reset()
            }
            return known
        }
    }
}

// MARK: Foreign revisions, branches and checkpoints

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
