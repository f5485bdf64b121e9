import Foundation
import GRDB

/// The identity map and reading rows: each row's object is the registered one or a new one, its
/// values checked against the declarations as it is read.
extension StorageContext {
    func registration(_ schema: EntitySchema, _ rowID: Int64) -> AnyObject? {
        registry(schema, creating: false)?[rowID]?.object
    }

    /// Registers `object` for its row; `isNew` when the caller knows the row is not registered yet.
    func register(_ backing: EntityBacking, object: AnyObject, isNew: Bool = false) {
        // Only `viewStorage` outlives its reads; the writer's and a snapshot's objects live as long as they do.
        let entry: Registration
        if case .reader = access {
            entry = .weak(WeakObject(object))
        } else {
            kept.append(object)
            entry = .kept(Unmanaged.passUnretained(object))
        }
        let registry = registry(backing.schema, creating: true)!
        if isNew { registry.appendNew(backing.rowID, entry) } else { registry[backing.rowID] = entry }
    }

    /// The registered objects of `schema`'s rows (made when `creating`).
    func registry(_ schema: EntitySchema, creating: Bool) -> RowRegistry? {
        let id = ObjectIdentifier(schema)
        if let lastRegistry, lastRegistry.schema == id { return lastRegistry.registry }
        let registry: RowRegistry
        if let existing = registered[id] {
            registry = existing
        } else if creating {
            registry = RowRegistry()
            registered[id] = registry
        } else {
            return nil
        }
        lastRegistry = (id, registry)
        return registry
    }

    /// The object for a row read now: the registered one (refreshed in `viewStorage`), or a new one.
    /// `nil` (and an error recorded) when a value does not fit its property.
    /// `unregistered`: the caller knows no object of this row is registered (a fetch that began with
    /// none of the entity's).
    func materialize(_ schema: EntitySchema, rowID: Int64, values: [StorageValue], unregistered: Bool = false) -> AnyObject? {
        // The writer's objects (and deleted ones) keep their own values: nothing to check or refresh.
        let existing = unregistered ? nil : registration(schema, rowID)
        if let existing, isWriter || (existing as? any StorageEntity)?._$backing.isDeleted == true {
            return existing
        }
        guard validate(schema, rowID: rowID, values: values) else { return nil }
        return refreshOrMake(existing, schema, rowID: rowID, values: values, register: true, isNew: unregistered)
    }

    func validate(_ schema: EntitySchema, rowID: Int64, values: [StorageValue]) -> Bool {
        for check in schema.columnChecks {
            let value = values[check.index]
            if check.accepts(value) || (fillsNewColumns && value == .null) { continue }
            let property = schema.properties[check.index]
            var found = "\(value.typeName) \(value)"
            if case .attribute(let info) = property.kind { found += " for \(info.typeName)" }
            record(.badValue(entity: schema.name, property: property.name, rowID: rowID, found: found))
            return false
        }
        return true
    }

    /// The object of `type` for `rowID`, registered or read now; `nil` when the row does not exist.
    func object<T: StorageEntity>(ofType type: T.Type, rowID: Int64) -> T? {
        guard let schema = schema(for: T.self) else { return nil }
        return entity(of: schema, rowID: rowID) as? T
    }

    /// The object for `rowID`: registered, inserted, or read now. (`viewStorage` holds its objects
    /// weakly, so callers keep the object, not just its backing.)
    func entity(of schema: EntitySchema, rowID: Int64) -> AnyObject? {
        if rowID < 0 {
            return inserted.first { $0.backing.rowID == rowID && $0.backing.schema === schema }?.object
        }
        if let object = registration(schema, rowID) { return object }
        return fetch(schema, where: SQLFragment(sql: "\"id\" = ?", arguments: [.integer(rowID)]), orderBy: nil, limit: 1).first
    }

    func backing(of schema: EntitySchema, rowID: Int64) -> EntityBacking? {
        (entity(of: schema, rowID: rowID) as? any StorageEntity)?._$backing
    }

    func schema<T: StorageEntity>(for type: T.Type) -> EntitySchema? {
        guard let schema = model.byName[T.entityName] else {
            record(.model("\(T.self) is not one of the model's entities"))
            return nil
        }
        return schema
    }

    /// Rows of `schema` as objects. Saves pending changes first in the writer, so queries see them.
    func fetch(_ schema: EntitySchema, where condition: SQLFragment?, orderBy: String?, limit: Int?) -> [AnyObject] {
        fetch(schema, where: condition, orderBy: orderBy, limit: limit, as: AnyObject.self)
    }

    /// Rows of `schema` as objects of `type` (the schema's class), made as each row is stepped.
    func fetch<T>(_ schema: EntitySchema, where condition: SQLFragment?, orderBy: String?, limit: Int?,
                  as type: T.Type) -> [T] {
        // The loop is not generic: appending to an `Array<T>` in unspecialized code looked up its
        // metadata per row. A class's array has the layout of `[AnyObject]`, so it is reinterpreted.
        if T.self is AnyObject.Type || T.self == AnyObject.self {
            let objects = fetchObjects(schema, where: condition, orderBy: orderBy, limit: limit,
                                       ofClass: ObjectIdentifier(type as Any.Type), keeping: { $0 is T })
            return unsafeBitCast(objects, to: [T].self)
        }
        return fetchObjects(schema, where: condition, orderBy: orderBy, limit: limit, ofClass: nil, keeping: { $0 is T })
            .map { $0 as! T }
    }

    /// Rows of `schema` as objects, made as each row is stepped; an object of class `ofClass` is kept
    /// at once, another only when `keeping` says so.
    private func fetchObjects(_ schema: EntitySchema, where condition: SQLFragment?, orderBy: String?, limit: Int?,
                              ofClass: ObjectIdentifier?, keeping: (AnyObject) -> Bool) -> [AnyObject] {
        if isWriter { flush() }
        let sql = selectSQL(schema, where: condition, orderBy: orderBy, limit: limit)
        do {
            // Each row becomes its object as it is stepped: no list of rows in between.
            return try withStatements { statements throws(StorageError) -> [AnyObject] in
                let statement = try statements.statement(sql)
                defer { statement.reset() }
                statement.bind(condition?.arguments ?? [])
                var objects: [AnyObject] = []
                var values = schema.defaultValues
                let columns = schema.columns
                // No object of the entity registered yet: each row's is new (a query returns a row once).
                let unregistered = registry(schema, creating: false)?.isEmpty ?? true
                while try statement.step() {
                    var column: Int32 = 1
                    for index in columns {
                        values[index] = statement.value(at: column)
                        column += 1
                    }
                    guard let object = materialize(schema, rowID: statement.int64(at: 0), values: values,
                                                   unregistered: unregistered) else { continue }
                    if ObjectIdentifier(Swift.type(of: object)) == ofClass || keeping(object) {
                        objects.append(object)
                    }
                }
                return objects
            }
        } catch {
            record(error)
            return []
        }
    }

    /// The `SELECT` of `schema`'s rows: its select list, `condition`, in `orderBy` order and then by row id.
    private func selectSQL(_ schema: EntitySchema, where condition: SQLFragment?, orderBy: String?, limit: Int?) -> String {
        var sql = "SELECT \(schema.selectList) FROM \(schema.quotedName)"
        if let condition { sql += " WHERE \(condition.sql)" }
        sql += " ORDER BY " + (orderBy.map { $0.isEmpty ? "\"id\"" : $0 + ", \"id\"" } ?? "\"id\"")
        if let limit { sql += " LIMIT \(limit)" }
        return sql
    }

    /// Rows of `schema` as values, one per property (`.null` in to-many slots), in `orderBy` order
    /// and then by row id. Saves pending changes first in the writer.
    func fetchRows(_ schema: EntitySchema, where condition: SQLFragment?, orderBy: String?,
                   limit: Int?) throws(StorageError) -> [(rowID: Int64, values: [StorageValue])] {
        if isWriter { flush() }
        let sql = selectSQL(schema, where: condition, orderBy: orderBy, limit: limit)
        return try withStatements { cache throws(StorageError) -> [(rowID: Int64, values: [StorageValue])] in
            let statement = try cache.statement(sql)
            defer { statement.reset() }
            statement.bind(condition?.arguments ?? [])
            var rows: [(rowID: Int64, values: [StorageValue])] = []
            var template = schema.defaultValues
            let columns = schema.columns
            while try statement.step() {
                for (offset, index) in columns.enumerated() {
                    template[index] = statement.value(at: Int32(offset + 1))
                }
                rows.append((statement.int64(at: 0), template))
            }
            return rows
        }
    }

    /// An object around values already read and checked (live results), without reading the row.
    /// `registered: false` makes one outside the identity map (a row that no longer exists).
    func object(_ schema: EntitySchema, rowID: Int64, checkedValues values: [StorageValue], registered: Bool) -> AnyObject {
        refreshOrMake(registered ? registration(schema, rowID) : nil, schema, rowID: rowID, values: values, register: registered)
    }

    /// `existing` with `values` (in `viewStorage`, unless deleted), or a new object around them.
    private func refreshOrMake(_ existing: AnyObject?, _ schema: EntitySchema, rowID: Int64, values: [StorageValue],
                               register: Bool, isNew: Bool = false) -> AnyObject {
        if let existing, let entity = existing as? any StorageEntity {
            let backing = entity._$backing
            if !isWriter && !backing.isDeleted {
                backing.values = values
                backing.related.removeAll()
            }
            return existing
        }
        let backing = EntityBacking(schema: schema, rowID: rowID, values: values, context: self)
        let object = schema.make(backing)
        backing.object = object
        if register { self.register(backing, object: object, isNew: isNew) }
        return object
    }

    func count(_ schema: EntitySchema, where condition: SQLFragment?) -> Int {
        if isWriter { flush() }
        var sql = "SELECT count(*) FROM \(schema.quotedName)"
        if let condition { sql += " WHERE \(condition.sql)" }
        do {
            return try withStatements { cache throws(StorageError) -> Int in
                let statement = try cache.statement(sql)
                defer { statement.reset() }
                statement.bind(condition?.arguments ?? [])
                guard try statement.step() else { return 0 }
                return Int(statement.int64(at: 0))
            }
        } catch {
            record(error)
            return 0
        }
    }

    func query<T: StorageEntity>(_ type: T.Type, _ predicate: Predicate<T>?, _ sort: [SortDescriptor<T>]?,
                                         limit: Int?) -> [T] {
        guard let schema = schema(for: T.self) else { return [] }
        let translator = QueryTranslator(schema: schema)
        do {
            let condition = try predicate.map { predicate throws(StorageError) in try translator.whereClause(predicate) }
            let order = try sort.map { sort throws(StorageError) in try translator.orderBy(sort) }
            return fetch(schema, where: condition, orderBy: order, limit: limit, as: T.self)
        } catch {
            record(error)
            return []
        }
    }
}
