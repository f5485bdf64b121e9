import Foundation
import SQLiteSupport
import FileStorageKit
import GRDB
import Synchronization

/// A document store: `Persistable` objects kept as JSON documents in one SQLite file, behind a weak
/// identity map. Dali's `Persistence`, with what Couchbase Lite adds: queries, revisions, conflicts,
/// a change feed and live queries.
///
/// ```swift
/// let persistence = try Persistence(name: "Shapes")
/// persistence.register(persistableKind: Square.self)
/// persistence.register(persistableKind: Circle.self)
/// try persistence.save(VennDiagram(left: Circle(radius: 1), right: Circle(radius: 2)))   // one transaction
/// let shape: Shape? = try persistence.load(identifier)   // a Square or a Circle
/// ```
///
/// `Persistence` may be used from any thread or task. The objects it returns are not `Sendable`: use
/// each one on the thread (or actor) that loaded it, and hand identifiers, not objects, to others.
/// Loading an identifier gives the same instance everywhere while anyone holds it.
public final class Persistence: Sendable {
    /// Where the store lives and how it behaves.
    public let configuration: PersistenceConfiguration
    let database: DocumentDatabase
    let identityMap = IdentityMap()
    let registry = KindRegistry()
    let hub: CommitHub
    /// How many ``WriteContext``s of this store exist (open transactions, and any a `DocumentSequence`
    /// begun in one still holds): while there are none, no task can have one bound, and
    /// ``currentContext()`` answers without looking up the task-local.
    private let writeContexts = Atomic<Int>(0)
    /// Held shared while this store is open, so that no other process moves the file aside meanwhile.
    let lock: StoreLock?
    /// Set when opening found the file damaged and moved it aside (the store is then new and empty):
    /// ``DocumentStoreError/corruptStoreMovedAside(file:movedTo:cause:)``, with where the old file went.
    public let recoveredFromCorruption: DocumentStoreError?

    /// Opens (creating when missing) the store described by `configuration`.
    ///
    /// A file SQLite finds damaged (`SQLITE_CORRUPT`, `SQLITE_NOTADB`, or a failed `quick_check`) is
    /// moved aside with its `-wal` and `-shm` files to `<name>.sqlite.corrupt-<time>`, and a new store
    /// is opened: see ``recoveredFromCorruption``. (A sync client then pulls its documents again.) A
    /// store another process has open is never moved: that is ``DocumentStoreError/cannotOpen(file:cause:)``.
    ///
    /// - Throws: ``DocumentStoreError/cannotOpen(file:cause:)`` (a read-only folder, a full disk, a
    ///   damaged store other processes have open, another program's database),
    ///   ``DocumentStoreError/corruptDatabase(file:cause:)`` (damaged, and its folder is read-only: left untouched),
    ///   ``DocumentStoreError/schemaNewerThanProgram(file:version:)``.
    public init(configuration: PersistenceConfiguration) throws(DocumentStoreError) {
        self.configuration = configuration
        let url = configuration.url
        do {
            try AppDirectories.createFolder(url.deletingLastPathComponent())
        } catch {
            throw .cannotOpen(file: url.path, cause: "\(error)")
        }
        let lock: StoreLock?
        do {
            lock = try StoreLock(for: url, timeout: configuration.recoveryLockTimeout)
        } catch {
            throw .cannotOpen(file: url.path, cause: "\(error)")
        }
        self.lock = lock
        if let lock {
            do {
                _ = try StoreRecovery.finishInterruptedMove(url, lock: lock, timeout: configuration.recoveryLockTimeout)
            } catch {
                throw .cannotOpen(file: url.path, cause: error.cause(damage: ""))
            }
        }
        do {
            database = try DocumentDatabase(configuration: configuration)
            recoveredFromCorruption = nil
        } catch {
            guard case .corruptDatabase(let file, let cause) = error, let lock else { throw error }
            let moved: URL?
            do {
                moved = try StoreRecovery.moveAside(url, lock: lock, timeout: configuration.recoveryLockTimeout)
            } catch .alreadyRecovered {
                moved = nil
            } catch {
                throw .cannotOpen(file: file, cause: error.cause(damage: cause))
            }
            database = try DocumentDatabase(configuration: configuration)
            recoveredFromCorruption = moved.map { .corruptStoreMovedAside(file: file, movedTo: $0.path, cause: cause) }
        }
        hub = CommitHub(path: url.path, interval: configuration.otherProcessPollInterval)
    }

    /// Looks for other processes' commits now, on the caller's thread, instead of at the next poll:
    /// live queries see them at once (tests need no waiting).
    package func checkForOtherProcessesCommits() { hub.checkNow() }

    /// Opens the store `<name>.sqlite` in the application-support folder of `appName` (`name` when nil).
    ///
    /// ```swift
    /// let persistence = try Persistence(name: "Shapes", appName: "shapes")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The file's name without `.sqlite`.
    ///   - appName: The application folder's name; `name` when `nil`.
    ///   - directories: Where the application-support folder is; the platform's when `nil`.
    /// - Throws: What ``init(configuration:)`` throws.
    public convenience init(name: String, appName: String? = nil, directories: AppDirectories? = nil) throws(DocumentStoreError) {
        try self.init(configuration: PersistenceConfiguration(name: name, appName: appName, directories: directories))
    }

    /// Opens the store named `databaseName`, as ``init(name:appName:directories:)`` does: Dali's
    /// `Persistence(databaseName:)` (which could return `nil`; this throws instead).
    ///
    /// - Parameters:
    ///   - databaseName: The file's name without `.sqlite`, also the application folder's name.
    ///   - directories: Where the application-support folder is; the platform's when `nil`.
    /// - Throws: What ``init(configuration:)`` throws.
    public convenience init(databaseName: String, directories: AppDirectories? = nil) throws(DocumentStoreError) {
        try self.init(name: databaseName, directories: directories)
    }

    /// Opens the store in the file `url`.
    ///
    /// ```swift
    /// let persistence = try Persistence(url: URL(fileURLWithPath: "/tmp/shapes.sqlite"))
    /// ```
    ///
    /// - Parameter url: The database file; its folder is created when missing.
    /// - Throws: What ``init(configuration:)`` throws.
    public convenience init(url: URL) throws(DocumentStoreError) {
        try self.init(configuration: PersistenceConfiguration(url: url))
    }

    /// The database file.
    public var url: URL { configuration.url }

    /// The SQL that creates a store's tables and indexes (schema version ``schemaVersion``), for tools
    /// that read or write the file directly, such as the raw-SQLite side of `Benchmarks/document-bench`.
    /// A file made with it must also get `PRAGMA user_version = <schemaVersion>`, or opening it runs
    /// the upgrades again.
    public static var schemaStatements: [String] { DocumentDatabase.schema }

    /// The schema version `schemaStatements` makes (kept in the file's `PRAGMA user_version`).
    public static var schemaVersion: Int { DocumentDatabase.schemaVersion }

    // MARK: Kinds

    /// Makes documents of `type`'s kind load as `type`, and lets queries and loads of a superclass
    /// find them. Registering a kind again replaces its type. Saving an object registers its type too.
    public func register<T: Persistable>(persistableKind type: T.Type) {
        registry.register(type)
    }

    // MARK: Loading

    /// The object stored under `identifier`, `nil` for a `nil` identifier or when there is no such
    /// document (or it was deleted).
    ///
    /// While any instance for `identifier` is alive, this returns that instance, without reading the
    /// database; use ``refresh(_:)`` to see a newer revision.
    ///
    /// - Throws: ``DocumentStoreError/wrongKind(identifier:expected:found:)`` when the document is not a
    ///   `T` (or a subclass), ``DocumentStoreError/unregisteredKind(kind:identifier:)``,
    ///   ``DocumentStoreError/malformedJSON(identifier:offset:reason:)``,
    ///   ``DocumentStoreError/documentRejected(identifier:kind:)`` when `init?(with:from:)` returns nil,
    ///   ``DocumentStoreError/identifierNotStored(kind:identifier:found:)``,
    ///   ``DocumentStoreError/cyclicLoad(identifier:)`` (a cycle of eager loads), and whatever
    ///   `init?(with:from:)` throws; ``DocumentStoreError/busyTimeout(file:seconds:)``,
    ///   ``DocumentStoreError/corruptDatabase(file:cause:)``, ``DocumentStoreError/sqlite(code:message:sql:)``
    ///   or ``DocumentStoreError/databaseDeleted(file:)`` when the file cannot be read.
    public func load<T: Persistable>(_ identifier: String?) throws -> T? {
        guard let identifier else { return nil }
        let key = IdentifierKey(identifier)
        if let cached = cachedObject(key) {
            guard let typed = Self.cast(cached, to: T.self) else {
                throw DocumentStoreError.wrongKind(identifier: identifier, expected: T.kind, found: Self.kind(of: cached))
            }
            return typed
        }
        return try loadStored(key, as: T.self, replacing: false)
    }

    /// ``load(_:)`` with the type spelled out: `try persistence.load(Circle.self, id)`.
    ///
    /// - Parameters:
    ///   - type: The class to load as; a document of a registered subclass's kind loads as that subclass.
    ///   - identifier: The document's identifier; `nil` gives `nil`.
    /// - Returns: The object, or `nil` when there is no such document.
    /// - Throws: What ``load(_:)`` throws.
    public func load<T: Persistable>(_ type: T.Type, _ identifier: String?) throws -> T? {
        try load(identifier)
    }

    /// The identifier of the document whose `init(with:from:)` is running on this task, `nil` outside
    /// one: for a type whose `identifier` is computed, to set what it is computed from.
    public static var identifierBeingLoaded: String? { LoadChain.current?.identifier }

    /// Whether an instance for `identifier` is alive in the identity map.
    ///
    /// Inside a ``transaction(_:)``, the objects it saved, loaded or refreshed count (they enter the
    /// map when it commits); outside, only committed ones do.
    public func isCached(identifier: String) -> Bool {
        cachedObject(IdentifierKey(identifier)) != nil
    }

    /// The revision `object` was loaded or last saved at; `nil` for an object the store has not seen
    /// (or that another instance replaced).
    ///
    /// Inside a ``transaction(_:)`` this is the revision the object has in it; if the transaction rolls
    /// back, the object keeps the revision it had before.
    public func revision(of object: some Persistable) -> String? {
        let key = IdentifierKey(object.identifier)
        if let context = currentContext() { return context.revision(of: object, key: key) }
        return identityMap.revision(of: object, key: key)
    }

    /// A fresh instance of the document `object` was loaded from, at its current revision; `object`
    /// itself when that is still the revision it has. The new instance replaces `object` in the
    /// identity map (saving `object` afterwards is a conflict). `nil` when the document was deleted.
    ///
    /// ```swift
    /// counter.value += 1
    /// do {
    ///     try persistence.save(counter)
    /// } catch DocumentStoreError.conflict {
    ///     guard let fresh = try persistence.refresh(counter) else { return }   // deleted meanwhile
    ///     fresh.value += 1
    ///     try persistence.save(fresh)
    /// }
    /// ```
    ///
    /// - Parameter object: An object this store loaded or saved.
    /// - Returns: The object at the document's current revision, or `nil` when it was deleted.
    /// - Throws: ``DocumentStoreError/unregisteredKind(kind:identifier:)``,
    ///   ``DocumentStoreError/wrongKind(identifier:expected:found:)``,
    ///   ``DocumentStoreError/malformedJSON(identifier:offset:reason:)``,
    ///   ``DocumentStoreError/documentRejected(identifier:kind:)``,
    ///   ``DocumentStoreError/identifierNotStored(kind:identifier:found:)``, whatever `init?(with:from:)` throws;
    ///   ``DocumentStoreError/busyTimeout(file:seconds:)``, ``DocumentStoreError/corruptDatabase(file:cause:)``,
    ///   ``DocumentStoreError/sqlite(code:message:sql:)`` or ``DocumentStoreError/databaseDeleted(file:)``
    ///   when the file cannot be read.
    public func refresh<T: Persistable>(_ object: T) throws -> T? {
        let identifier = object.identifier
        guard let row = try readDocument(identifier), !row.deleted else {
            replaceCached(IdentifierKey(identifier), with: nil, revision: "")
            return nil
        }
        if revision(of: object) == row.revision { return object }
        return try makeObject(row, identifier: identifier, as: T.self, replacing: true)
    }

    /// The stored document for `identifier`, as JSON, without building an object; `nil` when there is
    /// none or it is deleted.
    ///
    /// Unlike an object, a snapshot is `Sendable` and registers nothing: it works for kinds this
    /// process has no type for.
    ///
    /// - Parameter identifier: The document's identifier.
    /// - Returns: The identifier, kind, current revision and body, or `nil`.
    /// - Throws: ``DocumentStoreError/malformedJSON(identifier:offset:reason:)`` when the stored body is
    ///   not JSON; ``DocumentStoreError/busyTimeout(file:seconds:)``, ``DocumentStoreError/corruptDatabase(file:cause:)``,
    ///   ``DocumentStoreError/sqlite(code:message:sql:)`` or ``DocumentStoreError/databaseDeleted(file:)``
    ///   when the file cannot be read.
    public func snapshot(_ identifier: String) throws(DocumentStoreError) -> DocumentSnapshot? {
        guard let row = try readDocument(identifier), !row.deleted else { return nil }
        return DocumentSnapshot(identifier: identifier, kind: row.kind, revision: row.revision,
                                body: try JSON(parsing: row.body, identifier: identifier))
    }

    // MARK: Saving

    /// Saves `object` and, in the same transaction, everything its `save(to:)` saves.
    ///
    /// Outside a transaction this starts one; inside one (a `save(to:)`, a ``transaction(_:)``) it
    /// joins it. Each identifier's `save(to:)` runs at most once per transaction, so object graphs
    /// with cycles end (call `to.save(child)` from `save(to:)` for that). All or nothing: when
    /// anything throws, nothing is written and no object's revision changes.
    ///
    /// - Throws: ``DocumentStoreError/conflict(_:)`` when an object was changed elsewhere since it was
    ///   loaded or saved (``refresh(_:)`` it and try again), or when a new object reuses the identifier
    ///   of an existing document; whatever `object`'s `save(to:)` throws
    ///   (``DocumentStoreError/unstorableProperty(identifier:kind:property:type:)`` and
    ///   ``DocumentStoreError/invalidValue(identifier:path:reason:)`` from the default one);
    ///   ``DocumentStoreError/diskFull(file:)``, ``DocumentStoreError/readOnly(file:)``,
    ///   ``DocumentStoreError/busyTimeout(file:seconds:)`` (another process held the write lock),
    ///   ``DocumentStoreError/corruptDatabase(file:cause:)``, ``DocumentStoreError/sqlite(code:message:sql:)`` or
    ///   ``DocumentStoreError/databaseDeleted(file:)`` when the file cannot be written.
    public func save(_ object: some Persistable) throws {
        if let context = currentContext() {
            guard context.visit(IdentifierKey(object.identifier)) else { return }
            try object.save(to: self)
        } else {
            try transaction { try $0.save(object) }
        }
    }

    /// Writes `object`'s document with these fields: what `save(to:)` calls.
    ///
    /// ```swift
    /// try to.save(self, json: ["left": left.identifier, "right": right.identifier])
    /// ```
    ///
    /// Outside a transaction it starts one, as ``save(_:)`` does.
    ///
    /// - Parameters:
    ///   - object: The object whose document this is; its `identifier` names the document.
    ///   - json: The body's fields.
    /// - Throws: ``DocumentStoreError/conflict(_:)`` when the document changed since `object` was loaded
    ///   or saved; ``DocumentStoreError/invalidValue(identifier:path:reason:)`` for a number that is
    ///   not finite; ``DocumentStoreError/diskFull(file:)``, ``DocumentStoreError/readOnly(file:)``,
    ///   ``DocumentStoreError/busyTimeout(file:seconds:)`` (another process held the write lock),
    ///   ``DocumentStoreError/corruptDatabase(file:cause:)``, ``DocumentStoreError/sqlite(code:message:sql:)`` or
    ///   ``DocumentStoreError/databaseDeleted(file:)`` when the file cannot be written.
    public func save(_ object: some Persistable, json: [String: any JSONRepresentable]) throws {
        guard let context = currentContext() else {
            return try save(object, document: .object(json.mapValues { $0.jsonValue }))
        }
        // In a transaction (where `save(to:)` runs), as `save(_:document:)` with that object, without
        // making its dictionary: the values in the dictionary's order (as `mapValues` would read them),
        // their canonical text, and the JSON itself only if a conflict is to report it.
        try withUnsafeTemporaryAllocation(of: (key: String, value: JSON).self, capacity: json.count) { buffer in
            var count = 0
            for (key, value) in json {
                (buffer.baseAddress! + count).initialize(to: (key, value.jsonValue))
                count += 1
            }
            defer { buffer.baseAddress!.deinitialize(count: count) }
            let fields = UnsafeBufferPointer(rebasing: buffer[..<count])
            let identifier = object.identifier
            let type = type(of: object)
            let text = try CanonicalJSON.checkedBytes(fields: fields, identifier: identifier)
            try write(object, type: type, identifier: identifier, text: text, in: context) {
                .object(Dictionary(uniqueKeysWithValues: fields.lazy.map { ($0.key, $0.value) }))
            }
        }
    }

    /// Writes `object`'s document with the fields of `json`, a JSON object (such as Gloss's `jsonify`
    /// gives): what `save(to:)` calls.
    ///
    /// - Parameters:
    ///   - object: The object whose document this is.
    ///   - json: The body: a JSON object.
    /// - Throws: What ``save(_:document:)`` throws.
    public func save(_ object: some Persistable, json: JSON) throws {
        try save(object, document: json)
    }

    /// Writes `object`'s document with the body `document`, which must be a JSON object.
    ///
    /// ```swift
    /// try to.save(self, document: ["radius": .double(radius)])
    /// ```
    ///
    /// - Parameters:
    ///   - object: The object whose document this is.
    ///   - document: The body.
    /// - Throws: ``DocumentStoreError/invalidValue(identifier:path:reason:)`` when `document` is not an
    ///   object or holds a number that is not finite; ``DocumentStoreError/conflict(_:)`` when the
    ///   document changed since `object` was loaded or saved;
    ///   ``DocumentStoreError/diskFull(file:)``, ``DocumentStoreError/readOnly(file:)``,
    ///   ``DocumentStoreError/busyTimeout(file:seconds:)`` (another process held the write lock),
    ///   ``DocumentStoreError/corruptDatabase(file:cause:)``, ``DocumentStoreError/sqlite(code:message:sql:)`` or
    ///   ``DocumentStoreError/databaseDeleted(file:)`` when the file cannot be written.
    public func save(_ object: some Persistable, document: JSON) throws {
        let identifier = object.identifier
        guard case .object = document else {
            throw DocumentStoreError.invalidValue(identifier: identifier, path: "$", reason: "a document body must be a JSON object")
        }
        let type = type(of: object)
        // The canonical text as bytes: bound and digested as they are, never made a `String`.
        let text = try CanonicalJSON.checkedBytes(document, identifier: identifier)
        if let context = currentContext() {
            try write(object, type: type, identifier: identifier, text: text, in: context) { document }
        } else {
            try transaction { try $0.save(object, document: document) }
        }
    }

    /// Registers `object`'s type and writes its document with the canonical `text`, in `context`.
    private func write(_ object: AnyObject, type: any Persistable.Type, identifier: String, text: [UInt8],
                       in context: WriteContext, body: () -> JSON?) throws(DocumentStoreError) {
        // Saving registers the type (once per type and transaction: bulk saves skip the lookup).
        if context.lastRegistered != ObjectIdentifier(type) {
            registry.register(type)
            context.lastRegistered = ObjectIdentifier(type)
        }
        let kind = type.kind
        try text.withUnsafeBufferPointer { text throws(DocumentStoreError) in
            try context.put(object, key: context.key(identifier), kind: kind, text: text, body: body, deleted: false)
        }
    }

    /// Deletes `object`'s document: a new revision that is a deletion (a tombstone the change feed and
    /// replicas see). Loading the identifier then gives `nil`.
    ///
    /// - Throws: ``DocumentStoreError/conflict(_:)`` when the document changed since `object` was
    ///   loaded or saved; ``DocumentStoreError/diskFull(file:)``, ``DocumentStoreError/readOnly(file:)``,
    ///   ``DocumentStoreError/busyTimeout(file:seconds:)`` (another process held the write lock),
    ///   ``DocumentStoreError/corruptDatabase(file:cause:)``, ``DocumentStoreError/sqlite(code:message:sql:)``
    ///   or ``DocumentStoreError/databaseDeleted(file:)`` when the file cannot be written.
    public func delete(_ object: some Persistable) throws {
        if let context = currentContext() {
            try context.put(object, key: IdentifierKey(object.identifier), kind: type(of: object).kind, text: "{}",
                            body: nil, deleted: true)
        } else {
            try transaction { try $0.delete(object) }
        }
    }

    /// Runs `body` in one write transaction: every save and delete in it commits together, or none
    /// does when it throws. Inside another transaction of this store, `body` joins it.
    ///
    /// Inside it, a load or query of an object saved (or loaded) earlier in it returns that same
    /// instance. What it saves, loads and refreshes enters the identity map only when it commits: after
    /// a rollback no instance of a document it wrote is served, and saved objects keep the revisions
    /// they had before it.
    ///
    /// ```swift
    /// try persistence.transaction { persistence in
    ///     try persistence.delete(oldCircle)
    ///     try persistence.save(newCircle)
    /// }
    /// ```
    ///
    /// - Parameter body: The saves and deletes; it runs once, on the caller's thread.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws (after rolling back);
    ///   ``DocumentStoreError/diskFull(file:)``, ``DocumentStoreError/readOnly(file:)``,
    ///   ``DocumentStoreError/busyTimeout(file:seconds:)`` (another process held the write lock),
    ///   ``DocumentStoreError/corruptDatabase(file:cause:)``, ``DocumentStoreError/sqlite(code:message:sql:)`` or
    ///   ``DocumentStoreError/databaseDeleted(file:)`` when the file cannot be written.
    @discardableResult
    public func transaction<R>(_ body: (Persistence) throws -> R) throws -> R {
        if currentContext() != nil { return try body(self) }
        var finished: WriteContext?
        let result = try database.write { db in
            let context = WriteContext(persistence: self, db: db)
            finished = context
            return try WriteContext.$current.withValue(context) { try body(self) }
        }
        if let finished {
            finished.publish()
            if finished.didWrite { hub.notify() }
        }
        return result
    }

    // MARK: Internals

    /// The transaction this task is in on this store, if any.
    @inline(__always)
    func currentContext() -> WriteContext? {
        // No context of this store exists, so none is bound to this task: the common case of a load
        // outside any transaction skips the task-local lookup. (A task that has one bound holds it, so
        // the count cannot reach 0 before this task lets go of it; relaxed suffices: the binding was
        // made after the increment, on this task or before the task that inherited it was created.)
        guard writeContexts.load(ordering: .relaxed) > 0 else { return nil }
        guard let context = WriteContext.current, context.persistence === self else { return nil }
        return context
    }

    /// Counts a new ``WriteContext`` of this store (its initializer calls this).
    func writeContextOpened() { writeContexts.wrappingAdd(1, ordering: .relaxed) }

    /// Counts a ``WriteContext`` of this store gone (its deinitializer calls this).
    func writeContextClosed() { writeContexts.wrappingSubtract(1, ordering: .relaxed) }

    /// The live instance for `identifier` as the caller sees it: inside a transaction, the one it
    /// saved, loaded or refreshed (or none, when it deleted the document), else the shared map's.
    func cachedObject(_ identifier: String) -> AnyObject? { cachedObject(IdentifierKey(identifier)) }

    /// The live instance for `key`'s identifier as the caller sees it (as for an identifier, hashed once).
    @inline(__always)
    func cachedObject(_ key: IdentifierKey) -> AnyObject? {
        if let context = currentContext() {
            switch context.cached(key) {
            case .object(let object): return object
            case .none: return nil
            case .unknown: break
            }
        }
        return identityMap.object(key)
    }

    /// `object` as a `T`, the common case (an object of exactly the class asked for) without the
    /// runtime's dynamic cast.
    @inline(__always)
    static func cast<T: Persistable>(_ object: AnyObject, to type: T.Type) -> T? {
        if ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(T.self) { return unsafeDowncast(object, to: T.self) }
        return object as? T
    }

    /// Puts a fresh instance in place of `key`'s (nil removes it): in the transaction, which
    /// publishes it on commit, or at once outside one.
    private func replaceCached(_ key: IdentifierKey, with object: AnyObject?, revision: String) {
        if let context = currentContext() {
            context.replace(key, with: object, revision: revision)
        } else {
            identityMap.replace(key, with: object, revision: revision)
        }
    }

    /// Runs `body` on the current transaction's connection, or on a reader.
    func reading<R>(_ body: (Database) throws -> R) throws(DocumentStoreError) -> R {
        if let context = currentContext() {
            do { return try body(context.db) } catch { throw DocumentDatabase.storeError(error, file: database.path) }
        }
        return try database.read(body)
    }

    struct StoredRow {
        let kind: String
        let revision: String
        let deleted: Bool
        let body: String
    }

    func readDocument(_ identifier: String) throws(DocumentStoreError) -> StoredRow? {
        try reading { db in
            let select = try StoreStatement(cached: "SELECT kind, revision, deleted, body FROM documents WHERE id = ?", in: db)
            defer { select.reset() }
            select.bind(identifier, at: 1)
            guard try select.step() else { return nil }
            return StoredRow(kind: select.text(at: 0) ?? "", revision: select.text(at: 1) ?? "",
                             deleted: select.int64(at: 2) != 0, body: select.text(at: 3) ?? "{}")
        }
    }

    func loadStored<T: Persistable>(_ key: IdentifierKey, as type: T.Type, replacing: Bool) throws -> T? {
        guard let row = try readDocument(key.identifier), !row.deleted else { return nil }
        return try makeObject(row, key: key, as: type, replacing: replacing)
    }

    /// Builds the object for a stored row and puts it in the identity map.
    func makeObject<T: Persistable>(_ row: StoredRow, identifier: String, as type: T.Type, replacing: Bool) throws -> T {
        try makeObject(row, key: IdentifierKey(identifier), as: type, replacing: replacing)
    }

    /// ``makeObject(_:identifier:as:replacing:)`` for an identifier already hashed.
    func makeObject<T: Persistable>(_ row: StoredRow, key: IdentifierKey, as type: T.Type, replacing: Bool) throws -> T {
        let identifier = key.identifier
        let concrete = try registry.type(forKind: row.kind, identifier: identifier, as: T.self)
        let json = try JSON(parsing: row.body, identifier: identifier)
        let made = try LoadChain.loading(identifier) { try concrete.init(with: json, from: self) }
        guard let object = made else { throw DocumentStoreError.documentRejected(identifier: identifier, kind: row.kind) }
        if object.identifier != identifier, !IdentifierField.assign(identifier, to: object) {
            throw DocumentStoreError.identifierNotStored(kind: row.kind, identifier: identifier, found: object.identifier)
        }
        if replacing {
            replaceCached(key, with: object, revision: row.revision)
            return object
        }
        let shared = currentContext()?.insertLoaded(object, key: key, revision: row.revision)
            ?? identityMap.insertLoaded(object, key: key, revision: row.revision)
        guard let typed = shared as? T else {
            throw DocumentStoreError.wrongKind(identifier: identifier, expected: T.kind, found: Self.kind(of: shared))
        }
        return typed
    }

    static func kind(of object: AnyObject) -> String {
        (object as? any Persistable).map { type(of: $0).kind } ?? "\(type(of: object))"
    }
}
