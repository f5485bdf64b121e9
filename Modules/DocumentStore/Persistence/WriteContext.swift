import Foundation
import GRDB
import SQLiteSupport
import GRDBSQLite

/// One write transaction of a `Persistence`: what it has visited and written, on the writer connection.
///
/// It is bound to the task-local ``current`` while the transaction's body runs, so the saves, loads and
/// queries that the objects' own code makes inside it join it instead of starting their own.
// @unchecked Sendable: used only by its write transaction, on the writer, while the transaction's synchronous body runs (`Sendable` only to be the task-local `current`)
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

    /// What this transaction did with one identifier: one record for the visit and the outcome, so a
    /// save finds its identifier in one table.
    struct Record {
        /// The store already called its object's `save(to:)` in this transaction (ends cycles).
        var visited = false
        var outcome = Outcome.none
    }

    /// What the identity map learns of an identifier when the transaction commits. A write supersedes a
    /// load or refresh of the same identifier (at commit it would replace it), so there is one or the other.
    enum Outcome {
        case none
        /// What this transaction wrote.
        case written(Written)
        /// What this transaction loaded or refreshed. Kept out of the shared identity map until the
        /// transaction commits (a rollback must not leave behind instances of documents, or revisions,
        /// that were never committed), and held strongly until then so a second load in the
        /// transaction finds the same instance.
        case loaded(Loaded)
    }

    @TaskLocal static var current: WriteContext?

    let persistence: Persistence
    let db: Database
    /// What this transaction visited, wrote, loaded and refreshed, by identifier (emptied into the
    /// identity map when it commits).
    private var records = IdentifierTable<Record>()
    /// The type registered last in this transaction (saving registers its object's type).
    var lastRegistered: ObjectIdentifier?
    /// Whether anything was written (documents, or foreign revisions by a replicator).
    var didWrite = false
    /// The save path's statements, taken from the writer's cache once per transaction (by slot) and
    /// then reused as they are: each use binds every parameter again, and each run resets them. (A
    /// buffer this context owns, so reading it is not an exclusive access of a property each time.)
    private let statements: UnsafeMutablePointer<StoreStatement?> = {
        let statements = UnsafeMutablePointer<StoreStatement?>.allocate(capacity: WriterStatement.allCases.count)
        statements.initialize(repeating: nil, count: WriterStatement.allCases.count)
        return statements
    }()

    /// The writer's connection, read once (GRDB's accessor is a call each time).
    private let sqliteConnection: OpaquePointer?
    /// The key `visit` hashed last: the save of that object asks for it again.
    private var lastVisited: IdentifierKey?

    init(persistence: Persistence, db: Database) {
        self.persistence = persistence
        self.db = db
        sqliteConnection = db.sqliteConnection
        persistence.writeContextOpened()
    }

    deinit {
        statements.deinitialize(count: WriterStatement.allCases.count)
        statements.deallocate()
        persistence.writeContextClosed()
    }

    private var connection: OpaquePointer { sqliteConnection! }

    @inline(__always)
    private func statement(_ kind: WriterStatement) throws(DocumentStoreError) -> StoreStatement {
        if let kept = statements[kind.rawValue] { return kept }
        let statement = try persistence.database.writerStatements.statement(slot: kind.rawValue, sql: kind.sql, on: connection)
        statements[kind.rawValue] = statement
        return statement
    }
    private var historyLimit: Int { max(1, persistence.configuration.revisionHistoryLimit) }

    /// Writes a revision of `key`'s document for `object`: the body `text` (canonical JSON) or a deletion.
    ///
    /// The base revision is the one `object` was loaded or last saved at (or written at earlier in this
    /// transaction); the write is refused as a conflict unless that is the document's current revision,
    /// or, for an object the store has never seen, unless there is no document (or only a deletion).
    /// Writing the current body again changes nothing and returns the current revision.
    @discardableResult
    func put(_ object: AnyObject, key: IdentifierKey, kind: String, text: String, body: JSON?,
             deleted: Bool) throws(DocumentStoreError) -> String {
        try Self.withUTF8(text) { text throws(DocumentStoreError) in
            try put(object, key: key, kind: kind, text: text, body: { body }, deleted: deleted)
        }
    }

    /// ``put(_:key:kind:text:body:deleted:)`` with the body text as UTF-8 bytes, bound as they are, and
    /// the body as JSON made only for a conflict (which reports it).
    @discardableResult
    func put(_ object: AnyObject, key: IdentifierKey, kind: String, text: UnsafeBufferPointer<UInt8>, body: () -> JSON?,
             deleted: Bool) throws(DocumentStoreError) -> String {
        let identifier = key.identifier
        let base = revision(of: object, key: key)
        let revision: String
        if base == nil, let inserted = try insertNew(identifier: identifier, kind: kind, text: text, deleted: deleted) {
            revision = inserted
        } else {
            revision = try update(identifier: identifier, kind: kind, text: text, body: body, deleted: deleted, base: base)
        }
        record(key).pointee.outcome = .written(Written(object: object, revision: revision, deleted: deleted))
        didWrite = true
        return revision
    }

    // MARK: The transaction's view of the identity map

    /// Marks `key` visited: false when it already was (its `save(to:)` ran in this transaction).
    @inline(__always)
    func visit(_ key: IdentifierKey) -> Bool {
        lastVisited = key
        let record = record(key)
        if record.pointee.visited { return false }
        record.pointee.visited = true
        return true
    }

    /// The key of `identifier`: the one `visit` hashed last when it is that identifier (a save's
    /// object is visited, then its `save(to:)` writes it), else hashed now.
    @inline(__always)
    func key(_ identifier: String) -> IdentifierKey {
        if let last = lastVisited, last.identifier == identifier { return last }
        return IdentifierKey(identifier)
    }

    /// What the identity map will hold for an identifier if this transaction commits.
    enum Cached {
        /// The transaction decided nothing about it: ask the shared map.
        case unknown
        /// The instance for it (saved, loaded or refreshed in this transaction).
        case object(AnyObject)
        /// No instance: deleted, or a refresh found it deleted, in this transaction. Read the document.
        case none
    }

    /// The instance this transaction saved, loaded or refreshed for `key`.
    func cached(_ key: IdentifierKey) -> Cached {
        let (slot, found) = records.find(key)
        guard found else { return .unknown }
        switch records.value(at: slot).pointee.outcome {
        case .written(let prior): return prior.deleted ? .none : .object(prior.object)
        case .loaded(let prior): return prior.object.map { .object($0) } ?? .none
        case .none: return .unknown
        }
    }

    /// The revision `object` has in this transaction: the one it was written or loaded at in it, else
    /// the one the shared map gives it (unless this transaction gave its identifier another instance).
    func revision(of object: AnyObject, key: IdentifierKey) -> String? {
        let (slot, found) = records.find(key)
        if found {
            switch records.value(at: slot).pointee.outcome {
            case .written(let prior): return prior.object === object ? prior.revision : nil
            case .loaded(let prior): return prior.object === object ? prior.revision : nil
            case .none: break
            }
        }
        return persistence.identityMap.revision(of: object, key: key)
    }

    /// Records a freshly built instance of `key`'s document; another live instance (this
    /// transaction's, or a committed one) wins and is returned, as in the shared map.
    func insertLoaded(_ object: AnyObject, key: IdentifierKey, revision: String) -> AnyObject {
        switch cached(key) {
        case .object(let existing): return existing
        case .none: break
        case .unknown: if let existing = persistence.identityMap.object(key) { return existing }
        }
        let record = record(key)
        // Only a deletion in this transaction gets here with a write: it supersedes the load.
        if case .written = record.pointee.outcome { return object }
        record.pointee.outcome = .loaded(Loaded(object: object, revision: revision, replacing: false))
        return object
    }

    /// Records a refresh: `object` (nil for a deleted document) replaces the identifier's instance.
    func replace(_ key: IdentifierKey, with object: AnyObject?, revision: String) {
        // The refresh read the document as this transaction left it, so it supersedes what was written.
        record(key).pointee.outcome = .loaded(Loaded(object: object, revision: revision, replacing: true))
    }

    /// Moves what this transaction saved, loaded and refreshed into the shared map: called once it
    /// committed, never when it rolled back. The records are moved, not copied, and the table is left
    /// empty (nothing reads it after the commit: a sequence begun in the transaction refuses to go on).
    func publish() {
        persistence.identityMap.commit(draining: &records)
    }

    /// `key`'s record, added (empty) when there is none; in place until the next call.
    @inline(__always)
    private func record(_ key: IdentifierKey) -> UnsafeMutablePointer<Record> {
        records.value(adding: key, Record())
    }

    /// Inserts a document that does not exist yet; `nil` when it does (the caller then updates it).
    private func insertNew(identifier: String, kind: String, text: UnsafeBufferPointer<UInt8>,
                           deleted: Bool) throws(DocumentStoreError) -> String? {
        let revision = Revision.next(after: nil, canonicalBody: text, deleted: deleted)
        let insert = try statement(.insertDocument)
        // The revision's and the body's bytes are bound in place (three statements read the revision).
        let inserted = try Self.withUTF8(revision) { revisionBytes throws(DocumentStoreError) -> Bool in
            let added = try Self.withUTF8(identifier) { identifierBytes throws(DocumentStoreError) -> Bool in
                try Self.withUTF8(kind) { kindBytes throws(DocumentStoreError) -> Bool in
                    insert.bindUnretained(identifierBytes, at: 1)
                    insert.bindUnretained(kindBytes, at: 2)
                    insert.bindUnretained(revisionBytes, at: 3)
                    insert.bind(Int64(deleted ? 1 : 0), at: 4)
                    insert.bindUnretained(text, at: 5)
                    defer {
                        insert.bindNull(at: 1)
                        insert.bindNull(at: 2)
                        insert.bindNull(at: 3)
                        insert.bindNull(at: 5)
                    }
                    try insert.run()
                    return sqlite3_changes(connection) == 1
                }
            }
            guard added else { return false }
            let number = sqlite3_last_insert_rowid(connection)
            try insertRevision(document: number, revision: revisionBytes, parent: nil, generation: 1, deleted: deleted, body: nil)
            try insertChange(document: number, revision: revisionBytes, deleted: deleted)
            return true
        }
        return inserted ? revision : nil
    }

    private func update(identifier: String, kind: String, text: UnsafeBufferPointer<UInt8>, body: () -> JSON?, deleted: Bool,
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
            : (!currentDeleted && select.textEquals(at: 3, text) && select.text(at: 4) == kind)
        let currentText = select.text(at: 3) ?? "{}"
        select.reset()
        let acceptable = base.map { $0 == current } ?? currentDeleted
        guard acceptable else {
            let currentBody = currentDeleted ? nil : try JSON(parsing: currentText, identifier: identifier)
            throw .conflict(DocumentConflict(identifier: identifier, kind: kind, baseRevision: base, attempted: body(),
                                             currentRevision: current, current: currentBody))
        }
        if unchanged { return current }
        let revision = Revision.next(after: current, canonicalBody: text, deleted: deleted)
        let generation = Revision.generation(of: revision) ?? 1
        let write = try statement(.updateDocument)
        write.bind(kind, at: 1)
        write.bind(revision, at: 2)
        write.bind(Int64(deleted ? 1 : 0), at: 3)
        write.bindUnretained(text, at: 4)
        write.bind(number, at: 5)
        do {
            defer { write.bindNull(at: 4) }
            try write.run()
        }
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
        try Self.withUTF8(revision) { bytes throws(DocumentStoreError) in
            try insertRevision(document: document, revision: bytes, parent: parent, generation: generation, deleted: deleted, body: body)
        }
    }

    /// ``insertRevision(document:revision:parent:generation:deleted:body:)`` with the revision's
    /// UTF-8 bytes, bound in place while the statement runs.
    private func insertRevision(document: Int64, revision: UnsafeBufferPointer<UInt8>, parent: String?, generation: Int,
                                deleted: Bool, body: String?) throws(DocumentStoreError) {
        let insert = try statement(.insertRevision)
        insert.bind(document, at: 1)
        insert.bindUnretained(revision, at: 2)
        defer { insert.bindNull(at: 2) }
        if let parent { insert.bind(parent, at: 3) } else { insert.bindNull(at: 3) }
        insert.bind(Int64(generation), at: 4)
        insert.bind(Int64(deleted ? 1 : 0), at: 5)
        if let body { insert.bind(body, at: 6) } else { insert.bindNull(at: 6) }
        try insert.run()
    }

    func insertChange(document: Int64, revision: String, deleted: Bool) throws(DocumentStoreError) {
        try Self.withUTF8(revision) { bytes throws(DocumentStoreError) in
            try insertChange(document: document, revision: bytes, deleted: deleted)
        }
    }

    /// ``insertChange(document:revision:deleted:)`` with the revision's UTF-8 bytes, bound in place
    /// while the statement runs.
    private func insertChange(document: Int64, revision: UnsafeBufferPointer<UInt8>, deleted: Bool) throws(DocumentStoreError) {
        let insert = try statement(.insertChange)
        insert.bind(document, at: 1)
        insert.bindUnretained(revision, at: 2)
        defer { insert.bindNull(at: 2) }
        insert.bind(Int64(deleted ? 1 : 0), at: 3)
        try insert.run()
    }

    /// Runs `body` with `text`'s UTF-8 bytes, valid while it runs (to bind them without a copy).
    @inline(__always)
    private static func withUTF8<R, E: Error>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        var text = text
        let result = text.withUTF8 { bytes in Result { () throws(E) -> R in try body(bytes) } }
        return try result.get()
    }
}
