import Foundation
import GRDB
import SQLiteSupport
import GRDBSQLite

/// A leaf of a document's revision tree: the current revision or a conflicting branch.
///
/// A document has more than one leaf when replicas edited it concurrently (see `DocumentSync`); an app
/// can list them with ``Persistence/branches(of:)`` to show a conflict:
///
/// ```swift
/// let live = try persistence.branches(of: "square-1").filter { !$0.deleted }
/// if live.count > 1 { showConflict(live.compactMap(\.body)) }
/// ```
public struct RevisionBranch: Sendable, Equatable {
    /// The leaf's revision identifier (`<generation>-<digest>`).
    public let revision: String
    /// Whether the leaf is a deletion.
    public let deleted: Bool
    /// The leaf's body (`nil` for a deletion).
    public let body: JSON?
    /// Whether it is the document's current (winning) revision.
    public let isCurrent: Bool
}

/// The revision tree of documents, on a connection inside a write transaction.
///
/// Invariants: `documents` holds each document's winner and its body; in `revisions`, every leaf other
/// than the winner keeps its body (`{}` for a deletion) and every other node has none. The winner is
/// the leaf that is not deleted if any, then the highest generation, then the greatest identifier:
/// the rule CouchDB and Couchbase Lite use, so every replica picks the same one.
struct RevisionTree {
    let db: Database

    struct Leaf {
        let revision: String
        let generation: Int64
        let deleted: Bool
        let body: String?
    }

    func leaves(document: Int64) throws(DocumentStoreError) -> [Leaf] {
        // The parents are listed once (SQLite builds one ephemeral index of them): a child lookup per
        // revision would cost the square of the tree's size, and a tree keeps up to 1,000 generations.
        let select = try StoreStatement(cached: """
            SELECT revision, generation, deleted, body FROM revisions WHERE document = ?1
            AND revision NOT IN (SELECT parent FROM revisions WHERE document = ?1 AND parent IS NOT NULL)
            """, in: db)
        defer { select.reset() }
        select.bind(document, at: 1)
        var leaves: [Leaf] = []
        while try select.step() {
            leaves.append(Leaf(revision: select.text(at: 0) ?? "", generation: select.int64(at: 1),
                               deleted: select.int64(at: 2) != 0, body: select.isNull(at: 3) ? nil : select.text(at: 3)))
        }
        return leaves
    }

    static func beats(_ a: Leaf, _ b: Leaf) -> Bool {
        if a.deleted != b.deleted { return !a.deleted }
        if a.generation != b.generation { return a.generation > b.generation }
        return b.revision.utf8.lexicographicallyPrecedes(a.revision.utf8)
    }

    /// Makes the winning leaf the document's current revision, moving bodies to keep the invariants.
    func electWinner(document: Int64) throws(DocumentStoreError) {
        let current = try StoreStatement(cached: "SELECT revision, deleted, body FROM documents WHERE number = ?", in: db)
        current.bind(document, at: 1)
        guard try current.step() else { current.reset(); return }
        let currentRevision = current.text(at: 0) ?? ""
        let currentBody = current.text(at: 2) ?? "{}"
        current.reset()
        let leaves = try leaves(document: document)
        guard let winner = leaves.max(by: { Self.beats($1, $0) }), winner.revision != currentRevision else { return }
        let setBody = try StoreStatement(cached: "UPDATE revisions SET body = ? WHERE document = ? AND revision = ?", in: db)
        if leaves.contains(where: { $0.revision == currentRevision }) {
            setBody.bind(currentBody, at: 1)
            setBody.bind(document, at: 2)
            setBody.bind(currentRevision, at: 3)
            try setBody.run()
        }
        setBody.bindNull(at: 1)
        setBody.bind(document, at: 2)
        setBody.bind(winner.revision, at: 3)
        try setBody.run()
        let update = try StoreStatement(cached: "UPDATE documents SET revision = ?, deleted = ?, body = ? WHERE number = ?", in: db)
        update.bind(winner.revision, at: 1)
        update.bind(Int64(winner.deleted ? 1 : 0), at: 2)
        update.bind(winner.body ?? "{}", at: 3)
        update.bind(document, at: 4)
        try update.run()
    }

    /// Adds a revision made elsewhere, with its ancestry, and elects the winner. `false` when the
    /// revision was already known, or is one the tree has let go of: it was in the feed before (pruned
    /// or superseded since), or it is older than the tree's horizon (see ``prune(document:limit:newest:)``).
    ///
    /// When the ancestry is cut short (its oldest entry is not a first revision) and that oldest entry is
    /// not in this tree either, the revision's history passes through generations this tree cannot
    /// compare: every revision below the oldest entry is superseded and removed, so a leaf older than
    /// that point never stays a branch, and never outlives a deletion that descends from it.
    func insert(_ foreign: ForeignRevision, context: WriteContext) throws(DocumentStoreError) -> Bool {
        guard let generation = Revision.generation(of: foreign.revision) else {
            throw .misuse("\(foreign.revision) is not a revision identifier (<generation>-<digest>)")
        }
        let text: String
        if foreign.deleted {
            text = "{}"
        } else if let canonical = foreign.canonicalBody {
            text = canonical
        } else {
            text = try CanonicalJSON.checkedText(foreign.body ?? .object([:]), identifier: foreign.identifier)
        }
        let limit = max(1, context.persistence.configuration.revisionHistoryLimit)
        let find = try StoreStatement(cached: "SELECT number FROM documents WHERE id = ?", in: db)
        find.bind(foreign.identifier, at: 1)
        let existing = try find.step() ? find.int64(at: 0) : nil
        find.reset()
        let connection = db.sqliteConnection!
        let number: Int64
        // The generation below which the incoming ancestry says nothing this tree can check.
        var stem: Int?
        // The newest leaf's generation before this insert (its leaves are read once for the horizon).
        var newestBefore: Int64 = 0
        if let existing {
            number = existing
            if try contains(document: number, revision: foreign.revision) { return false }
            if try wasInFeed(document: number, revision: foreign.revision) { return false }
            newestBefore = try leaves(document: number).map(\.generation).max() ?? 0
            if Int64(generation) <= newestBefore - Int64(limit) { return false }
            if let oldest = foreign.ancestors.last, let oldestGeneration = Revision.generation(of: oldest), oldestGeneration > 1,
               try !contains(document: number, revision: oldest) {
                stem = oldestGeneration
            }
        } else {
            let insert = try StoreStatement(cached: "INSERT INTO documents(id, kind, revision, deleted, body) VALUES (?, ?, ?, ?, ?)", in: db)
            insert.bind(foreign.identifier, at: 1)
            insert.bind(foreign.kind, at: 2)
            insert.bind(foreign.revision, at: 3)
            insert.bind(Int64(foreign.deleted ? 1 : 0), at: 4)
            insert.bind(text, at: 5)
            try insert.run()
            number = sqlite3_last_insert_rowid(connection)
        }
        // Ancestors first (nodes without bodies), oldest last in the list: each one's parent is the next.
        for (index, ancestor) in foreign.ancestors.enumerated() {
            guard let ancestorGeneration = Revision.generation(of: ancestor) else {
                throw .misuse("\(ancestor) is not a revision identifier (<generation>-<digest>)")
            }
            let parent = index + 1 < foreign.ancestors.count ? foreign.ancestors[index + 1] : nil
            try context.insertRevision(document: number, revision: ancestor, parent: parent,
                                       generation: ancestorGeneration, deleted: false)
        }
        try context.insertRevision(document: number, revision: foreign.revision, parent: foreign.ancestors.first,
                                   generation: generation, deleted: foreign.deleted, body: existing == nil ? nil : text)
        if !foreign.ancestors.isEmpty, existing != nil {
            // Revisions that are no longer leaves keep no body.
            let clear = try StoreStatement(cached: """
                UPDATE revisions SET body = NULL WHERE document = ?1 AND body IS NOT NULL
                AND revision IN (SELECT parent FROM revisions WHERE document = ?1 AND parent IS NOT NULL)
                """, in: db)
            clear.bind(number, at: 1)
            try clear.run()
        }
        try context.insertChange(document: number, revision: foreign.revision, deleted: foreign.deleted)
        if existing != nil {
            if let stem {
                let superseded = try StoreStatement(cached: "DELETE FROM revisions WHERE document = ? AND generation < ?", in: db)
                superseded.bind(number, at: 1)
                superseded.bind(Int64(stem), at: 2)
                try superseded.run()
            }
            // The insert can only raise the newest leaf to its own generation (the stem removes older rows only).
            try prune(document: number, limit: limit, newest: max(newestBefore, Int64(generation)))
            try electWinner(document: number)
        } else if generation > limit {
            try prune(document: number, limit: limit, newest: Int64(generation))
        }
        return true
    }

    private func contains(document number: Int64, revision: String) throws(DocumentStoreError) -> Bool {
        try hasRow("SELECT 1 FROM revisions WHERE document = ? AND revision = ?", document: number, revision: revision)
    }

    /// Whether the feed ever listed `revision` of the document (the feed keeps every entry, so a
    /// revision pruned from the tree is still found here and is never inserted, nor listed, twice).
    private func wasInFeed(document number: Int64, revision: String) throws(DocumentStoreError) -> Bool {
        try hasRow("SELECT 1 FROM changes WHERE document = ? AND revision = ?", document: number, revision: revision)
    }

    private func hasRow(_ sql: String, document number: Int64, revision: String) throws(DocumentStoreError) -> Bool {
        let select = try StoreStatement(cached: sql, in: db)
        defer { select.reset() }
        select.bind(number, at: 1)
        select.bind(revision, at: 2)
        return try select.step()
    }

    /// Keeps the tree to `limit` generations below its newest leaf: every revision at that depth or
    /// older goes, leaves included (a branch that old is past the horizon every replica and the server
    /// share, so it is superseded rather than kept as a conflict that could outlive a newer deletion).
    /// The caller elects the winner afterwards.
    ///
    /// - Parameter known: The newest leaf's generation when the caller knows it (read from the tree otherwise).
    func prune(document: Int64, limit: Int, newest known: Int64? = nil) throws(DocumentStoreError) {
        var newest = known ?? 0
        if known == nil { newest = try leaves(document: document).map(\.generation).max() ?? 0 }
        guard newest > Int64(max(1, limit)) else { return }
        let prune = try StoreStatement(cached: "DELETE FROM revisions WHERE document = ? AND generation <= ?", in: db)
        prune.bind(document, at: 1)
        prune.bind(newest - Int64(max(1, limit)), at: 2)
        try prune.run()
    }

    /// The ancestors of `revision` of document `number`, nearest first: every one the tree keeps, and the
    /// parent named by the oldest kept one.
    func ancestors(document number: Int64, revision: String) throws(DocumentStoreError) -> [String] {
        let select = try StoreStatement(cached: "SELECT parent FROM revisions WHERE document = ? AND revision = ?", in: db)
        var chain: [String] = []
        var next: String? = revision
        while let current = next {
            select.bind(number, at: 1)
            select.bind(current, at: 2)
            let found = try select.step()
            next = found && !select.isNull(at: 0) ? select.text(at: 0) : nil
            select.reset()
            if let next { chain.append(next) }
        }
        return chain
    }

    /// Ends a conflict (see `Persistence.resolveConflict`): the losing live leaves get deletions and the
    /// current revision a child with `mergedText` (a deletion for `nil`) unless it already has that body.
    ///
    /// With `expectedLeaves`, nothing is written (and `nil` returned) unless the document's leaves are
    /// exactly those: a revision committed after the caller read the branches is never overwritten.
    func resolve(identifier: String, mergedText: String?, expectedLeaves: Set<String>?,
                 context: WriteContext) throws(DocumentStoreError) -> String? {
        let find = try StoreStatement(cached: "SELECT number, revision, body FROM documents WHERE id = ?", in: db)
        find.bind(identifier, at: 1)
        guard try find.step() else { find.reset(); return nil }
        let number = find.int64(at: 0)
        let current = find.text(at: 1) ?? ""
        let currentBody = find.text(at: 2) ?? "{}"
        find.reset()
        let all = try leaves(document: number)
        if let expectedLeaves, Set(all.map(\.revision)) != expectedLeaves { return nil }
        let live = all.filter { !$0.deleted }
        guard live.count > 1 else { return nil }
        let clear = try StoreStatement(cached: "UPDATE revisions SET body = NULL WHERE document = ? AND revision = ?", in: db)
        for leaf in live where leaf.revision != current {
            let tombstone = Revision.next(after: leaf.revision, canonicalBody: "{}", deleted: true)
            try context.insertRevision(document: number, revision: tombstone, parent: leaf.revision,
                                       generation: Int(leaf.generation) + 1, deleted: true, body: "{}")
            clear.bind(number, at: 1)
            clear.bind(leaf.revision, at: 2)
            try clear.run()
            try context.insertChange(document: number, revision: tombstone, deleted: true)
        }
        if mergedText != currentBody {
            let deleted = mergedText == nil
            let text = mergedText ?? "{}"
            let merged = Revision.next(after: current, canonicalBody: text, deleted: deleted)
            try context.insertRevision(document: number, revision: merged, parent: current,
                                       generation: Revision.generation(of: merged) ?? 1, deleted: deleted)
            let update = try StoreStatement(cached: "UPDATE documents SET revision = ?, deleted = ?, body = ? WHERE number = ?", in: db)
            update.bind(merged, at: 1)
            update.bind(Int64(deleted ? 1 : 0), at: 2)
            update.bind(text, at: 3)
            update.bind(number, at: 4)
            try update.run()
            try context.insertChange(document: number, revision: merged, deleted: deleted)
        }
        // The merge (or a tombstone one generation past the current leaf) can be the new newest leaf:
        // the tree keeps to the history limit below it, as every other write does, or this replica
        // would keep a leaf the server and the other replicas have let go of.
        try prune(document: number, limit: max(1, context.persistence.configuration.revisionHistoryLimit))
        try electWinner(document: number)
        context.didWrite = true
        let after = try StoreStatement(cached: "SELECT revision FROM documents WHERE number = ?", in: db)
        defer { after.reset() }
        after.bind(number, at: 1)
        return try after.step() ? after.text(at: 0) : nil
    }

    /// The document's leaves, the current one marked.
    func branches(identifier: String) throws(DocumentStoreError) -> [RevisionBranch] {
        let find = try StoreStatement(cached: "SELECT number, revision, body FROM documents WHERE id = ?", in: db)
        find.bind(identifier, at: 1)
        guard try find.step() else { find.reset(); return [] }
        let number = find.int64(at: 0)
        let current = find.text(at: 1) ?? ""
        let currentBody = find.text(at: 2) ?? "{}"
        find.reset()
        return try leaves(document: number).map { leaf throws(DocumentStoreError) in
            let text = leaf.revision == current ? currentBody : (leaf.body ?? "{}")
            return RevisionBranch(revision: leaf.revision, deleted: leaf.deleted,
                                  body: leaf.deleted ? nil : try JSON(parsing: text, identifier: identifier),
                                  isCurrent: leaf.revision == current)
        }
    }

    /// The ancestry of `revision` of a document, itself first, as far as the tree keeps it (empty when
    /// the tree does not have it).
    func history(identifier: String, revision: String) throws(DocumentStoreError) -> [String] {
        let find = try StoreStatement(cached: "SELECT number FROM documents WHERE id = ?", in: db)
        find.bind(identifier, at: 1)
        let number = try find.step() ? find.int64(at: 0) : nil
        find.reset()
        guard let number, try exists(identifier: identifier, revision: revision) else { return [] }
        return [revision] + (try ancestors(document: number, revision: revision))
    }

    private func exists(identifier: String, revision: String) throws(DocumentStoreError) -> Bool {
        let select = try StoreStatement(cached: """
            SELECT 1 FROM revisions AS r JOIN documents AS d ON d.number = r.document WHERE d.id = ? AND r.revision = ?
            """, in: db)
        defer { select.reset() }
        select.bind(identifier, at: 1)
        select.bind(revision, at: 2)
        return try select.step()
    }
}
