import Foundation

extension Persistence {
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
}
