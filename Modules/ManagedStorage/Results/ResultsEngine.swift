import Foundation

/// One row of live results: its id and its values (one per property), never changed in place; a
/// changed row is a new `ResultRow`.
final class ResultRow {
    let rowID: Int64
    let values: [StorageValue]

    init(rowID: Int64, values: [StorageValue]) {
        self.rowID = rowID
        self.values = values
    }
}

/// A query of live results, translated: the `WHERE` clause, the sort (the section key first when
/// there are sections) and the limit.
struct CompiledQuery {
    let condition: SQLFragment?
    let terms: [OrderTerm]
    /// The property whose value names a row's section; `nil`: one section holding every row.
    let sectionIndex: Int?
    let fetchLimit: Int?

    /// Translates a predicate and sort. With a section key that is not the first sort column, the
    /// results are sorted by the section key (ascending) first, so each section is one run of rows.
    init<T>(schema: EntitySchema, predicate: Predicate<T>?, sortedBy descriptors: [SortDescriptor<T>],
            sectionNameKeyPath: String?, fetchLimit: Int?) throws(StorageError) {
        let translator = QueryTranslator(schema: schema)
        condition = try predicate.map { predicate throws(StorageError) in try translator.whereClause(predicate) }
        var terms = try translator.orderTerms(descriptors)
        if let name = sectionNameKeyPath {
            guard let index = schema.properties.firstIndex(where: { $0.name == name && $0.isColumn }) else {
                throw .unsupportedQuery("the section key \(name) (name a stored attribute or to-one relationship of \(schema.name))")
            }
            if terms.first?.index != index {
                terms.removeAll { $0.index == index }
                terms.insert(OrderTerm(index: index, ascending: true), at: 0)
            }
            sectionIndex = index
        } else {
            sectionIndex = nil
        }
        if let fetchLimit, fetchLimit < 0 { throw .unsupportedQuery("a negative fetch limit (\(fetchLimit))") }
        self.terms = terms
        self.fetchLimit = fetchLimit
    }
}

/// A section of live results: the rows `start..<start + count` that share a section key.
struct ResultSection {
    let key: StorageValue
    var start: Int
    var count: Int
    /// Stays with the section while it exists, so a change can tell surviving sections from new ones.
    let serial: Int
}

/// What one change did to live results, with the rows it concerns (for read-only copies).
struct EngineChanges {
    enum Kind { case insert, delete, move, update }

    struct SectionChange {
        let kind: Kind
        let index: Int
        let key: StorageValue
        let rows: [ResultRow]
    }

    struct RowChange {
        let kind: Kind
        let row: ResultRow
        let old: IndexPath?
        let new: IndexPath?
    }

    var sections: [SectionChange] = []
    var rows: [RowChange] = []

    var isEmpty: Bool { sections.isEmpty && rows.isEmpty }
}

/// Live results without their entity type: the rows in order, their sections, and how a commit's
/// changes move them.
///
/// Commits arrive as the object ids each transaction touched (this manager's, and other managers'
/// through the store's change log): the engine reads those rows again (one query), takes the old ones
/// out and puts the matching ones in by binary search, and reports the difference, all in
/// O(k log n + k·n/words) for k changed rows. Anything else (a commit whose objects are unknown, such
/// as another program's, an overflow, a reset, a new predicate or sort, a fetch limit) is a refetch
/// compared with the rows held, in O(n) (plus O(log n) per row that moved out of order).
final class ResultsEngine {
    let schema: EntitySchema
    var query: CompiledQuery
    var rows: [ResultRow] = []
    var byID: [Int64: ResultRow] = [:]
    var sections: [ResultSection] = []
    var nextSerial = 0
    /// Set after a change could not be applied: the next one refetches.
    var needsRefetch = false
    /// How many times the rows were fetched again and compared (for tests: a change applied object by
    /// object does not count).
    var refetches = 0

    init(schema: EntitySchema, query: CompiledQuery) {
        self.schema = schema
        self.query = query
    }

    // MARK: Reading

    /// The rows that match the query now, in order.
    func fetchAll(_ context: StorageContext) throws(StorageError) -> [ResultRow] {
        try read(context, where: query.condition, limit: query.fetchLimit)
    }

    private func read(_ context: StorageContext, where condition: SQLFragment?, limit: Int?) throws(StorageError) -> [ResultRow] {
        let order = QueryTranslator.orderBy(query.terms, schema: schema)
        let found = try context.fetchRows(schema, where: condition, orderBy: order, limit: limit)
        var rows: [ResultRow] = []
        rows.reserveCapacity(found.count)
        for row in found where context.validate(schema, rowID: row.rowID, values: row.values) {
            rows.append(ResultRow(rowID: row.rowID, values: row.values))
        }
        return rows
    }

    /// Replaces every row without reporting anything (the first fetch, a reset).
    func load(_ rows: [ResultRow]) {
        self.rows = rows
        byID = Dictionary(uniqueKeysWithValues: rows.map { ($0.rowID, $0) })
        sections = makeSections(rows)
        needsRefetch = false
    }

    // MARK: Order

    /// SQLite's order of the sort columns, then the row id.
    func precedes(_ a: ResultRow, _ b: ResultRow) -> Bool {
        for term in query.terms {
            let order = a.values[term.index].sqliteOrder(b.values[term.index])
            if order != 0 { return term.ascending ? order < 0 : order > 0 }
        }
        return a.rowID < b.rowID
    }

    /// Whether section key `a` comes before `b`.
    private func sectionPrecedes(_ a: StorageValue, _ b: StorageValue) -> Bool {
        let order = a.sqliteOrder(b)
        return query.terms.first?.ascending ?? true ? order < 0 : order > 0
    }

    private func sectionKey(_ row: ResultRow) -> StorageValue {
        query.sectionIndex.map { row.values[$0] } ?? .null
    }

    /// The first index whose row does not precede `row`.
    private func insertionIndex(_ row: ResultRow) -> Int {
        var low = 0, high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(rows[middle], row) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Where `row` (held) is; `nil` when the held rows are not in the order this engine computes
    /// (then the caller refetches).
    private func index(of row: ResultRow) -> Int? {
        let found = insertionIndex(row)
        return found < rows.count && rows[found] === row ? found : nil
    }

    /// The section holding flat index `index` (which must be in range).
    func sectionIndex(ofFlat index: Int) -> Int {
        var low = 0, high = sections.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if sections[middle].start <= index { low = middle } else { high = middle - 1 }
        }
        return low
    }

    func indexPath(ofFlat index: Int) -> IndexPath {
        let section = sectionIndex(ofFlat: index)
        return IndexPath(row: index - sections[section].start, section: section)
    }

    func makeSections(_ rows: [ResultRow]) -> [ResultSection] {
        guard query.sectionIndex != nil else {
            nextSerial += 1
            return [ResultSection(key: .null, start: 0, count: rows.count, serial: nextSerial)]
        }
        var sections: [ResultSection] = []
        for (offset, row) in rows.enumerated() {
            let key = sectionKey(row)
            if let last = sections.last, last.key.sqliteOrder(key) == 0 {
                sections[sections.count - 1].count += 1
            } else {
                nextSerial += 1
                sections.append(ResultSection(key: key, start: offset, count: 1, serial: nextSerial))
            }
        }
        return sections
    }

    // MARK: Commits

    /// Applies one commit's changes; `nil` when none concerns these results.
    func apply(_ changes: StorageChanges, _ context: StorageContext) throws(StorageError) -> EngineChanges? {
        let ids = changes.objects(of: schema.name)
        // Which rows changed is unknown (or the held rows are in doubt): fetch them all again.
        let unknown = !changes.objectsAreKnown || needsRefetch
        if ids.isEmpty && !unknown { return nil }
        // With a limit, a row leaving the first N lets one in from beyond them: refetch too.
        if unknown || query.fetchLimit != nil { return try refetch(context) }
        do {
            return try applyIncrementally(ids.map(\.rowID), context)
        } catch {
            needsRefetch = true
            throw error
        }
    }

    private func applyIncrementally(_ ids: [Int64], _ context: StorageContext) throws(StorageError) -> EngineChanges? {
        // The rows as they are now, among those that changed.
        let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
        var condition = SQLFragment(sql: "\"id\" IN (SELECT value FROM json_each(?))", arguments: [.text(list)])
        if let predicate = query.condition {
            condition.sql += " AND (\(predicate.sql))"
            condition.arguments += predicate.arguments
        }
        let fresh = try read(context, where: condition, limit: nil)

        // Where the old ones were.
        var olds: [Placed] = []
        for id in ids {
            guard let row = byID[id] else { continue }
            guard let flat = index(of: row) else { return try refetch(context) }
            let path = indexPath(ofFlat: flat)
            olds.append(Placed(row: row, flat: flat, path: path, serial: sections[path.section].serial))
        }
        if olds.isEmpty && fresh.isEmpty { return nil }
        olds.sort { $0.flat < $1.flat }
        let oldSections = sections

        // Out with the old rows, in with the new ones; sections emptied stay until the end, so a row
        // that leaves and comes back to its section does not delete and insert the section.
        for old in olds.reversed() {
            rows.remove(at: old.flat)
            byID[old.row.rowID] = nil
            sections[old.path.section].count -= 1
            for later in (old.path.section + 1)..<sections.count { sections[later].start -= 1 }
        }
        for row in fresh.sorted(by: precedes) {
            let flat = insertionIndex(row)
            rows.insert(row, at: flat)
            byID[row.rowID] = row
            placeInSection(row, at: flat)
        }
        sections.removeAll { $0.count == 0 && query.sectionIndex != nil }

        // Where the new ones are.
        var news: [Placed] = []
        for row in fresh {
            guard let flat = index(of: row) else { return try refetch(context) }
            let path = indexPath(ofFlat: flat)
            news.append(Placed(row: row, flat: flat, path: path, serial: sections[path.section].serial))
        }
        news.sort { $0.flat < $1.flat }

        var result = EngineChanges()
        let survivingSerials = Set(sections.map(\.serial))
        let oldSerials = Set(oldSections.map(\.serial))
        for (index, section) in oldSections.enumerated() where !survivingSerials.contains(section.serial) {
            result.sections.append(.init(kind: .delete, index: index, key: section.key,
                                         rows: olds.filter { $0.serial == section.serial }.map(\.row)))
        }
        for (index, section) in sections.enumerated() where !oldSerials.contains(section.serial) {
            let rows = Array(self.rows[section.start..<(section.start + section.count)])
            result.sections.append(.init(kind: .insert, index: index, key: section.key, rows: rows))
        }

        // A row that stayed between the same unchanged neighbours, in the same section and in the
        // same order as the other changed rows there, is an update; any other survivor moved.
        var oldByID: [Int64: (rank: Int, entry: Placed)] = [:]
        for (rank, old) in olds.enumerated() { oldByID[old.row.rowID] = (rank, old) }
        var candidates: [(oldFlat: Int, newFlat: Int, newRank: Int)] = []
        var survivors: [Int: (old: IndexPath, oldSerial: Int)] = [:]   // by new rank
        for (newRank, new) in news.enumerated() {
            guard let (oldRank, old) = oldByID.removeValue(forKey: new.row.rowID) else {
                result.rows.append(.init(kind: .insert, row: new.row, old: nil, new: new.path))
                continue
            }
            survivors[newRank] = (old.path, old.serial)
            if old.serial == new.serial && old.flat - oldRank == new.flat - newRank {
                candidates.append((old.flat, new.flat, newRank))
            }
        }
        for (_, old) in oldByID.values.sorted(by: { $0.rank < $1.rank }) {
            result.rows.append(.init(kind: .delete, row: old.row, old: old.path, new: nil))
        }
        candidates.sort { $0.oldFlat < $1.oldFlat }
        let staying = Set(increasingRun(candidates.map(\.newFlat)).map { candidates[$0].newRank })
        for (newRank, new) in news.enumerated() {
            guard let old = survivors[newRank] else { continue }
            let stays = staying.contains(newRank)
            let movable = survivingSerials.contains(old.oldSerial) && oldSerials.contains(new.serial)
            result.rows += rowChanges(new.row, old: old.old, new: new.path, stays: stays, movable: movable)
        }
        return result.isEmpty ? nil : result
    }

    /// A held row with its place: flat index, index path, and its section's serial.
    private struct Placed {
        let row: ResultRow
        let flat: Int
        let path: IndexPath
        let serial: Int
    }

    /// Adds one row to the section of its key at flat index `flat` (a new section when there is none).
    private func placeInSection(_ row: ResultRow, at flat: Int) {
        let key = sectionKey(row)
        // The first section whose key does not come before the row's.
        var low = 0, high = sections.count
        while low < high {
            let middle = (low + high) / 2
            if query.sectionIndex != nil && sectionPrecedes(sections[middle].key, key) { low = middle + 1 } else { high = middle }
        }
        if query.sectionIndex == nil { low = 0 }
        if low < sections.count && (query.sectionIndex == nil || sections[low].key.sqliteOrder(key) == 0) {
            sections[low].count += 1
        } else {
            nextSerial += 1
            sections.insert(ResultSection(key: key, start: flat, count: 1, serial: nextSerial), at: low)
        }
        for later in (low + 1)..<sections.count { sections[later].start += 1 }
    }

    /// The report for a row present before and after: an update when it stays in place, a move when
    /// it changed place between surviving sections, and a delete plus an insert when its old section
    /// went away or its new one is new (a table view cannot move rows out of deleted sections).
    func rowChanges(_ row: ResultRow, old: IndexPath, new: IndexPath, stays: Bool,
                    movable: Bool) -> [EngineChanges.RowChange] {
        if stays { return [.init(kind: .update, row: row, old: old, new: new)] }
        if movable { return [.init(kind: .move, row: row, old: old, new: new)] }
        return [.init(kind: .delete, row: row, old: old, new: nil), .init(kind: .insert, row: row, old: nil, new: new)]
    }
}
