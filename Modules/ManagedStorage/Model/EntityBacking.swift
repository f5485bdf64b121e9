import Foundation

/// One object's state: its row, its values, what changed, and the storage it belongs to.
///
/// Generated accessors call `get(_:)` and `set(_:_:)` with the property's index; the overload the
/// compiler picks for the property's type decides between an attribute, a to-one and a to-many
/// relationship. Not `Sendable`: it belongs to one storage on one thread.
public final class EntityBacking {
    let schema: EntitySchema
    /// The row's id once saved; a negative temporary id before.
    var rowID: Int64
    /// One value per property: attributes and to-one foreign keys; `.null` for to-many slots.
    @exclusivity(unchecked) @usableFromInline var values: [StorageValue]
    /// Which properties changed since the last save (empty until the first change).
    var changed: [Bool] = []
    var changeCount = 0
    /// To-one relationships set to objects in this storage (saved or not), by property index.
    var related: [Int: EntityBacking?] = [:]
    /// The foreign keys to-one relationships had before their first change since the last save
    /// (so the object they pointed at is reported as changed too).
    var originalToOne: [Int: StorageValue] = [:]
    var isInserted = false
    /// Set while this is a new object of a running operation's writer storage, until it is saved, deleted
    /// or the operation ends: a property set then only stores the value (nothing to check, compare or
    /// track, since a new object is written whole).
    @usableFromInline var isNewInWriter = false
    /// Whether the object was deleted in its storage (by `deleteObject(_:)` or a cascade): its
    /// properties keep their last values, and saving removes its row.
    public internal(set) var isDeleted = false
    /// The storage, through its one shared link: a strong reference to the link costs a row less
    /// than a weak reference of its own would (forming and destroying a weak reference per object
    /// was about 2% of a fetch).
    private let link: StorageContext.Link?
    var context: StorageContext? { link?.context }
    /// The entity instance around this state. It owns this backing, so it lives at least as long
    /// wherever the backing is reached through it; `unowned` rather than `weak` because a weak
    /// reference gives every object a side table (an allocation per row). Read only in the writer's
    /// storage, which keeps every object it hands out until the operation ends.
    @exclusivity(unchecked) unowned var object: AnyObject?

    init(schema: EntitySchema, rowID: Int64, values: [StorageValue], context: StorageContext?) {
        self.schema = schema
        self.rowID = rowID
        self.values = values
        self.link = context?.link
    }

    var objectID: StorageObjectID { StorageObjectID(entityName: schema.name, rowID: rowID) }

    var hasChanges: Bool { isInserted || isDeleted || changeCount > 0 }

    /// The permanent id: saves pending changes first if this object was never saved (used by `toReadOnly()`).
    public func permanentObjectID() -> StorageObjectID {
        if rowID < 0 { context?.flushForPermanentID() }
        return objectID
    }

    func markChanged(_ index: Int) {
        // A new object is written whole: nothing to track until it is saved.
        if isInserted { return }
        if changed.isEmpty { changed = Array(repeating: false, count: values.count) }
        if !changed[index] {
            changed[index] = true
            changeCount += 1
        }
        context?.noteChanged(self)
    }

    func clearChanges() {
        if !originalToOne.isEmpty { originalToOne.removeAll() }
        if changeCount > 0 {
            for index in changed.indices { changed[index] = false }
            changeCount = 0
        }
    }

    /// Whether property `index` changed since the last save.
    func isChanged(_ index: Int) -> Bool { !changed.isEmpty && changed[index] }

    /// Marks property `index` for the next update without the bookkeeping of a user's set.
    func forceChanged(_ index: Int) {
        if changed.isEmpty { changed = Array(repeating: false, count: values.count) }
        changed[index] = true
    }

    private func allowsMutation(_ what: @autoclosure () -> String) -> Bool {
        guard let context else { return true }
        // The writer's storage allows everything: no message is built on this path (it runs per property set).
        if context.isWriter { return true }
        return context.allowsMutation(what())
    }

    // MARK: Attributes

    /// An attribute's value.
    @inlinable
    public func get<V: StorageAttribute>(_ index: Int) -> V {
        if let value = V.decode(values[index]) { return value }
        return badValue(index)
    }

    /// Values are checked when a row is read, so this is only reachable through a bug: report, never trap.
    @usableFromInline
    func badValue<V: StorageAttribute>(_ index: Int) -> V {
        // A column a custom migration stage has yet to fill (see `StorageContext.fillsNewColumns`).
        if context?.fillsNewColumns == true, values[index] == .null { return fallback(index) }
        context?.record(.badValue(entity: schema.name, property: schema.properties[index].name, rowID: rowID,
                                  found: values[index].description))
        return fallback(index)
    }

    /// The property's default: the declared one, else its type's (the model has one or the other).
    private func fallback<V: StorageAttribute>(_ index: Int) -> V {
        if case .attribute(let info) = schema.properties[index].kind, let value = V.decode(info.defaultValue) { return value }
        return V.storageDefault
    }

    /// Sets an attribute's value; marks it changed when it differs.
    @inlinable
    public func set<V: StorageAttribute>(_ index: Int, _ newValue: V) {
        if isNewInWriter {
            values[index] = newValue.storageValue
            return
        }
        setStored(index, newValue.storageValue)
    }

    /// Sets an attribute's stored value, if the storage allows it; marks it changed when it differs.
    @usableFromInline
    func setStored(_ index: Int, _ stored: StorageValue) {
        guard allowsMutation("setting \(schema.name).\(schema.properties[index].name)") else { return }
        guard stored != values[index] else { return }
        values[index] = stored
        markChanged(index)
    }

    // MARK: To-one relationships

    /// A to-one relationship's object.
    public func get<T: StorageEntity>(_ index: Int) -> T? {
        if let cached = related[index] {
            guard let cached, !cached.isDeleted else { return nil }
            if let object = cached.object as? T { return object }
            if cached.rowID > 0 { return context?.object(ofType: T.self, rowID: cached.rowID) }
            return nil
        }
        guard case .integer(let target) = values[index] else { return nil }
        return context?.object(ofType: T.self, rowID: target)
    }

    /// Sets a to-one relationship, and keeps its inverse in step.
    public func set<T: StorageEntity>(_ index: Int, _ newValue: T?) {
        guard allowsMutation("setting \(schema.name).\(schema.properties[index].name)") else { return }
        guard let context else { return setToOne(index, newValue?._$backing) }
        if let newValue, newValue._$backing.context !== context {
            context.record(.objectNotInStorage("\(schema.name).\(schema.properties[index].name) was set to an object of another storage"))
            return
        }
        context.setToOne(self, index, newValue?._$backing)
    }

    /// Points the to-one `index` at `target` without touching any inverse.
    func setToOne(_ index: Int, _ target: EntityBacking?) {
        let foreignKey: StorageValue = target.map { $0.rowID > 0 ? .integer($0.rowID) : .null } ?? .null
        let current = related[index].flatMap { $0 }
        if current === target && values[index] == foreignKey && related[index] != nil { return }
        if !isInserted && !isChanged(index) && originalToOne[index] == nil { originalToOne[index] = values[index] }
        cacheRelated(index, target)
        values[index] = foreignKey
        markChanged(index)
    }

    /// The backing the to-one `index` points at, loading it if needed.
    func toOneTarget(_ index: Int) -> EntityBacking? {
        if let cached = related[index] { return cached }
        guard case .integer(let target) = values[index], let schema = schema.properties[index].target else { return nil }
        let backing = context?.backing(of: schema, rowID: target)
        // Cached only in the writer, whose objects live as long as the operation.
        if context?.isWriter == true { cacheRelated(index, backing) }
        return backing
    }

    /// Records `target` as what the to-one `index` points at. The writer's context lets go of every
    /// such cache when its operation ends (`StorageContext.end()`): the two ends of a one-to-one pair
    /// cache each other, and would otherwise keep each other alive.
    private func cacheRelated(_ index: Int, _ target: EntityBacking?) {
        if related.isEmpty, let context, context.isWriter { context.cachingRelated.append(self) }
        related[index] = .some(target)
    }

    // MARK: To-many relationships

    /// A to-many relationship's objects, oldest first.
    public func get<T: StorageEntity>(_ index: Int) -> [T] {
        guard let context else { return [] }
        return context.toManyObjects(self, index).compactMap { $0 as? T }
    }

    /// Replaces a to-many relationship's objects: the removed ones stop pointing here, the added ones
    /// point here (and leave the object they pointed at before).
    public func set<T: StorageEntity>(_ index: Int, _ newValue: [T]) {
        guard allowsMutation("setting \(schema.name).\(schema.properties[index].name)") else { return }
        guard let context else { return }
        context.setToMany(self, index, newValue.map(\._$backing))
    }
}
