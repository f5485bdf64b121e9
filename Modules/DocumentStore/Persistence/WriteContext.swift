import Foundation
import GRDB
import SQLiteSupport
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

    /// An object this transaction loaded or refreshed; `object` is nil when a refresh found the
    /// document deleted (the identifier then has no instance).
    struct Loaded {
        let object: AnyObject?
        let revision: String
        /// A refresh: at commit it replaces whatever instance the map has, instead of yielding to it.
        let replacing: Bool
    }

    @TaskLocal static var current: WriteContext?

    let persistence: Persistence
    let db: Database
    /// Identifiers whose `save(to:)` the store already called in this transaction (ends cycles).
    var visited: Set<String> = []
    /// What this transaction wrote, by identifier.
    var written: [String: Written] = [:]
    /// What this transaction loaded or refreshed, by identifier. Kept out of the shared identity map
    /// until the transaction commits (a rollback must not leave behind instances of documents, or
    /// revisions, that were never committed), and held strongly until then so a second load in the
    /// transaction finds the same instance.
    var loaded: [String: Loaded] = [:]
    /// The type registered last in this transaction (saving registers its object's type).
    var lastRegistered: ObjectIdentifier?
    /// Whether anything was written (documents, or foreign revisions by a replicator).
    var didWrite = false

    init(persistence: Persistence, db: Database) {
        self.persistence = persistence
        self.db = db
    }

    private var connection: OpaquePointer { db.sqliteConnection! }

    private func statement(_ kind: WriterStatement) throws(DocumentStoreError) -> StoreStatement {
        try persistence.database.writerStatements.statement(slot: kind.rawValue, sql: kind.sql, on: connection)
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
        let base = revision(of: object, identifier: identifier)
        let revision: String
        if base == nil, let inserted = try insertNew(identifier: identifier, kind: kind, text: text, deleted: deleted) {
            revision = inserted
        } else {
            revision = try update(identifier: identifier, kind: kind, text: text, body: body, deleted: deleted, base: base)
        }
        written[identifier] = Written(object: object, revision: revision, deleted: deleted)
        didWrite = true
        return revision
    }

    // MARK: The transaction's view of the identity map

    /// What the identity map will hold for `identifier` if this transaction commits.
    enum Cached {
        /// The transaction decided nothing about it: ask the shared map.
        case unknown
        /// The instance for it (saved, loaded or refreshed in this transaction).
        case object(AnyObject)
        /// No instance: deleted, or a refresh found it deleted, in this transaction. Read the document.
        case none
    }

    /// The instance this transaction saved, loaded or refreshed for `identifier`.
    func cached(_ identifier: String) -> Cached {
        if let prior = written[identifier] { return prior.deleted ? .none : .object(prior.object) }
        if let prior = loaded[identifier] { return prior.object.map { .object($0) } ?? .none }
        return .unknown
    }

    /// The revision `object` has in this transaction: the one it was written or loaded at in it, else
    /// the one the shared map gives it (unless this transaction gave its identifier another instance).
    func revision(of object: AnyObject, identifier: String) -> String? {
        if let prior = written[identifier] { return prior.object === object ? prior.revision : nil }
        if let prior = loaded[identifier] { return prior.object === object ? prior.revision : nil }
        return persistence.identityMap.revision(of: object, identifier: identifier)
    }

    /// Records a freshly built instance of `identifier`; another live instance (this transaction's, or
    /// a committed one) wins and is returned, as in the shared map.
    func insertLoaded(_ object: AnyObject, identifier: String, revision: String) -> AnyObject {
        switch cached(identifier) {
        case .object(let existing): return existing
        case .none: break
        case .unknown: if let existing = persistence.identityMap.object(identifier) { return existing }
        }
        loaded[identifier] = Loaded(object: object, revision: revision, replacing: false)
        return object
    }

    /// Records a refresh: `object` (nil for a deleted document) replaces the identifier's instance.
    func replace(_ identifier: String, with object: AnyObject?, revision: String) {
        // The refresh read the document as this transaction left it, so it supersedes what was written.
        written[identifier] = nil
        loaded[identifier] = Loaded(object: object, revision: revision, replacing: true)
    }

    /// Moves what this transaction saved, loaded and refreshed into the shared map: called once it
    /// committed, never when it rolled back.
    func publish() {
        persistence.identityMap.commit(loaded: loaded.lazy.map { (identifier: $0.key, loaded: $0.value) },
                                       written: written.lazy.map { identifier, written in
            (identifier: identifier, object: written.object, revision: written.revision, deleted: written.deleted)
        })
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
