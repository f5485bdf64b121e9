import Foundation
import SQLiteSupport

extension Persistence {
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

    // MARK: Loading internals

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
