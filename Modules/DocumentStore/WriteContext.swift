import Foundation
import GRDB
import GRDBSQLite

/// One write transaction of a `Persistence`: what it has visited and written, on the writer connection.
///
/// It is bound to the task-local ``current`` while the transaction's body runs, so the saves, loads and
/// queries that the objects' own code makes inside it join it instead of starting their own.
final class WriteContext: @unchecked Sendable {
    struct Written {
        let object: AnyObject
        var revision: String
        var deleted: Bool
    }

    @TaskLocal static var current: WriteContext?

    let persistence: Persistence
    let db: Database
    /// Identifiers whose `save(to:)` the store already called in this transaction (ends cycles).
    var visited: Set<String> = []
    /// What this transaction wrote, by identifier.
    var written: [String: Written] = [:]
    /// The type registered last in this transaction (saving registers its object's type).
    var lastRegistered: ObjectIdentifier?
    /// Whether anything was written (documents, or foreign revisions by a replicator).
    var didWrite = false

    init(persistence: Persistence, db: Database) {
        self.persistence = persistence
        self.db = db
    }

    private var connection: OpaquePointer { db.sqliteConnection! }

    private func statement(_ kind: WriterStatements.Kind) throws(DocumentStoreError) -> SQLiteStatement {
        try persistence.database.writerStatements.statement(kind, on: db)
    }
    private var historyLimit: Int { max(1, persistence.configuration.revisionHistoryLimit) }

    /// Writes a revision of `identifier` for `object`: the body `text` (canonical JSON) or a deletion.
    ///
    /// The base revision is the one `object` was loaded or last saved at (or written at earlier in this
    /// transaction); the write is refused as a conflict unless that is the document's current revision,
    /// or, for an object the store has never seen, unless there is no document (or only a deletion).
    /// Writing the current body again changes nothing and returns the current revision.
    @discardableResult
    func put(_ object: AnyObject, identifier: String, kind: String, text: String, body: JSON?,
             deleted: Bool) throws(DocumentStoreError) -> String {
        let base: String?
        if let prior = written[identifier], prior.object === object {
            base = prior.revision
        } else {
            base = persistence.identityMap.revision(of: object, identifier: identifier)
        }
        let revision: String
        if base == nil, let inserted = try insertNew(identifier: identifier, kind: kind, text: text, deleted: deleted) {
            revision = inserted
        } else {
            revision = try update(identifier: identifier, kind: kind, text: text, body: body, deleted: deleted, base: base)
        }
        written[identifier] = Written(object: object, revision: revision, deleted: deleted)
        return revision
    }

    /// Inserts a document that does not exist yet; `nil` when it does (the caller then updates it).
    private func insertNew(identifier: String, kind: String, text: String, deleted: Bool) throws(DocumentStoreError) -> String? {
        let revision = Revision.next(after: nil, canonicalBody: text, deleted: deleted)
        let insert = try statement(.insertDocument)
        insert.bind(identifier, at: 1)
        insert.bind(kind, at: 2)
        insert.bind(revision, at: 3)
        insert.bind(Int64(deleted ? 1 : 0), at: 4)
        insert.bind(text, at: 5)
        try insert.run()
        guard sqlite3_changes(connection) == 1 else { return nil }
        let number = sqlite3_last_insert_rowid(connection)
        try insertRevision(document: number, revision: revision, parent: nil, generation: 1, deleted: deleted)
        try insertChange(document: number, revision: revision, deleted: deleted)
        return revision
    }

    private func update(identifier: String, kind: String, text: String, body: JSON?, deleted: Bool,
                        base: String?) throws(DocumentStoreError) -> String {
        let select = try statement(.selectCurrent)
        select.bind(identifier, at: 1)
        guard try select.step() else {
            select.reset()
            // The object was based on a document that is gone (purged): it starts a new one.
            guard let inserted = try insertNew(identifier: identifier, kind: kind, text: text, deleted: deleted) else {
                throw .misuse("document \(identifier) appeared during its own transaction")
            }
            return inserted
        }
        let number = select.int64(at: 0)
        let current = select.text(at: 1) ?? ""
        let currentDeleted = select.int64(at: 2) != 0
        let unchanged = deleted ? currentDeleted
            : (!currentDeleted && select.textEquals(at: 3, Array(text.utf8)) && select.text(at: 4) == kind)
        let currentText = select.text(at: 3) ?? "{}"
        select.reset()
        let acceptable = base.map { $0 == current } ?? currentDeleted
        guard acceptable else {
            let currentBody = currentDeleted ? nil : try JSON(parsing: currentText, identifier: identifier)
            throw .conflict(DocumentConflict(identifier: identifier, kind: kind, baseRevision: base, attempted: body,
                                             currentRevision: current, current: currentBody))
        }
        if unchanged { return current }
        let revision = Revision.next(after: current, canonicalBody: text, deleted: deleted)
        let generation = Revision.generation(of: revision) ?? 1
        let write = try statement(.updateDocument)
        write.bind(kind, at: 1)
        write.bind(revision, at: 2)
        write.bind(Int64(deleted ? 1 : 0), at: 3)
        write.bind(text, at: 4)
        write.bind(number, at: 5)
        try write.run()
        try insertRevision(document: number, revision: revision, parent: current, generation: generation, deleted: deleted)
        if generation > historyLimit {
            let prune = try statement(.prune)
            prune.bind(number, at: 1)
            prune.bind(Int64(generation - historyLimit), at: 2)
            try prune.run()
        }
        try insertChange(document: number, revision: revision, deleted: deleted)
        if deleted { try RevisionTree(db: db).electWinner(document: number) }
        return revision
    }

    func insertRevision(document: Int64, revision: String, parent: String?, generation: Int, deleted: Bool,
                        body: String? = nil) throws(DocumentStoreError) {
        let insert = try statement(.insertRevision)
        insert.bind(document, at: 1)
        insert.bind(revision, at: 2)
        if let parent { insert.bind(parent, at: 3) } else { insert.bindNull(at: 3) }
        insert.bind(Int64(generation), at: 4)
        insert.bind(Int64(deleted ? 1 : 0), at: 5)
        if let body { insert.bind(body, at: 6) } else { insert.bindNull(at: 6) }
        try insert.run()
    }

    func insertChange(document: Int64, revision: String, deleted: Bool) throws(DocumentStoreError) {
        let insert = try statement(.insertChange)
        insert.bind(document, at: 1)
        insert.bind(revision, at: 2)
        insert.bind(Int64(deleted ? 1 : 0), at: 3)
        try insert.run()
    }
}
