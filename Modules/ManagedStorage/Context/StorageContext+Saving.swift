import Foundation

extension StorageContext {
    /// Writes pending inserts, updates and deletes into the open transaction (writer only).
    ///
    /// Inserts go first, each after the unsaved objects its to-one relationships point at, so a
    /// foreign key is written with the row; a cycle of new objects is closed by an update afterwards.
    /// Deletes go last: references to a deleted row from rows not loaded are set to `NULL` in SQL.
    func flush() {
        guard isWriter, !flushing else { return }
        guard !inserted.isEmpty || !updatedOrder.isEmpty || !deleted.isEmpty else { return }
        writtenSinceSave = true
        flushing = true
        defer { flushing = false }
        do {
            try withStatements { cache throws(StorageError) in
                try flushInserts(cache)
                try flushUpdates(cache)
                try flushDeletes(cache)
            }
        } catch {
            record(error)
        }
    }

    private func flushInserts(_ cache: ContextStatements) throws(StorageError) {
        let pending = inserted
        inserted.removeAll()
        var closingUpdates: [EntityBacking] = []
        var inProgress = Set<ObjectIdentifier>()
        var statements: [ObjectIdentifier: RawStatement] = [:]

        func insert(_ backing: EntityBacking, object: AnyObject) throws(StorageError) {
            backing.isNewInWriter = false
            guard backing.isInserted, !backing.isDeleted else { return }
            let schema = backing.schema
            // Only an object with to-one relationships starts inserting others first, so only such an
            // object can be met again while it is in progress (a cycle).
            if !schema.toOneIndexes.isEmpty { inProgress.insert(ObjectIdentifier(backing)) }
            var needsClosingUpdate = false
            for index in schema.toOneIndexes where !backing.related.isEmpty {
                guard let target = backing.related[index].flatMap({ $0 }) else { continue }
                if target.rowID < 0 && target.isInserted && !target.isDeleted {
                    if inProgress.contains(ObjectIdentifier(target)) {
                        needsClosingUpdate = true
                        continue
                    }
                    if let targetObject = target.object { try insert(target, object: targetObject) }
                }
                backing.values[index] = target.rowID > 0 && !target.isDeleted ? .integer(target.rowID) : .null
            }
            let statement: RawStatement
            if let cached = statements[ObjectIdentifier(schema)] {
                statement = cached
            } else {
                statement = try cache.statement(schema.insertSQL)
                statements[ObjectIdentifier(schema)] = statement
            }
            var parameter: Int32 = 1
            for index in schema.columns {
                statement.bind(backing.values[index], at: parameter)
                parameter += 1
            }
            try statement.run()
            backing.rowID = statement.lastInsertRowID
            backing.isInserted = false
            backing.clearChanges()
            register(backing, object: object)
            changes.inserted.insert(backing.objectID)
            for index in schema.toOneIndexes { noteRelatedChanged(schema, index, backing.values[index]) }
            if needsClosingUpdate {
                for index in schema.toOneIndexes where backing.related[index] != nil { backing.forceChanged(index) }
                backing.changeCount = 1
                closingUpdates.append(backing)
            }
        }

        changes.inserted.reserveCapacity(changes.inserted.count + pending.count)
        for (backing, object) in pending {
            try insert(backing, object: object)
        }
        for backing in closingUpdates where updated[ObjectIdentifier(backing)] == nil {
            updated[ObjectIdentifier(backing)] = backing
            updatedOrder.append(backing)
        }
    }

    private func flushUpdates(_ cache: ContextStatements) throws(StorageError) {
        let pending = updatedOrder
        updatedOrder.removeAll()
        updated.removeAll()
        for backing in pending where !backing.isDeleted && backing.rowID > 0 && backing.changeCount > 0 {
            let schema = backing.schema
            var assignments: [String] = []
            var arguments: [StorageValue] = []
            for index in schema.columns where backing.isChanged(index) {
                if case .toOne = schema.properties[index].kind, let target = backing.related[index] {
                    backing.values[index] = target.map { $0.rowID > 0 && !$0.isDeleted ? .integer($0.rowID) : .null } ?? .null
                }
                assignments.append("\(SQL.quote(schema.properties[index].name)) = ?")
                arguments.append(backing.values[index])
                if case .toOne = schema.properties[index].kind {
                    noteRelatedChanged(schema, index, backing.values[index])
                    if let original = backing.originalToOne[index] { noteRelatedChanged(schema, index, original) }
                }
            }
            let statement = try cache.statement("UPDATE \(schema.quotedName) SET \(assignments.joined(separator: ", ")) WHERE \"id\" = ?")
            statement.bind(arguments + [.integer(backing.rowID)])
            try statement.run()
            backing.clearChanges()
            if !changes.inserted.contains(backing.objectID) { changes.updated.insert(backing.objectID) }
        }
    }

    private func flushDeletes(_ cache: ContextStatements) throws(StorageError) {
        let pending = deleted
        deleted.removeAll()
        for backing in pending where backing.rowID > 0 {
            let schema = backing.schema
            for reference in schema.incoming {
                let column = SQL.quote(reference.entity.properties[reference.property].name)
                let statement = try cache.statement("UPDATE \(reference.entity.quotedName) SET \(column) = NULL WHERE \(column) = ? RETURNING \"id\"")
                defer { statement.reset() }
                statement.bind(.integer(backing.rowID), at: 1)
                // The rows that pointed here changed too (live results filtering on the column see it).
                while try statement.step() {
                    let id = StorageObjectID(entityName: reference.entity.name, rowID: statement.int64(at: 0))
                    if !changes.inserted.contains(id) { changes.updated.insert(id) }
                }
            }
            for index in schema.toOneIndexes {
                noteRelatedChanged(schema, index, backing.originalToOne[index] ?? backing.values[index])
            }
            let statement = try cache.statement("DELETE FROM \(schema.quotedName) WHERE \"id\" = ?")
            statement.bind(.integer(backing.rowID), at: 1)
            try statement.run()
            registry(schema, creating: false)?[backing.rowID] = nil
            let id = backing.objectID
            if changes.inserted.remove(id) == nil { changes.deleted.insert(id) }
            changes.updated.remove(id)
        }
    }

    /// Records the object a to-one relationship points at (`value`, a row id) as updated when its
    /// inverse is a relationship of that object: its to-many list (or its one-to-one end) changed.
    private func noteRelatedChanged(_ schema: EntitySchema, _ index: Int, _ value: StorageValue) {
        let property = schema.properties[index]
        guard property.inverse != nil, let target = property.target, case .integer(let rowID) = value else { return }
        let id = StorageObjectID(entityName: target.name, rowID: rowID)
        if !changes.inserted.contains(id) && !changes.deleted.contains(id) { changes.updated.insert(id) }
    }
}
