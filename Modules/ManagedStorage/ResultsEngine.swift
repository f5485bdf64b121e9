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
/// Changes made in this process arrive as the object ids each transaction touched: the engine reads
/// those rows again (one query), takes the old ones out and puts the matching ones in by binary search,
/// and reports the difference, all in O(k log n + k·n/words) for k changed rows. Anything else (a
/// commit by another process, a new predicate or sort, a fetch limit) is a refetch compared with the
/// rows held, in O(n) (plus O(log n) per row that moved out of order).
final class ResultsEngine {
    let schema: EntitySchema
    private(set) var query: CompiledQuery
    private(set) var rows: [ResultRow] = []
    private(set) var byID: [Int64: ResultRow] = [:]
    private(set) var sections: [ResultSection] = []
    private var nextSerial = 0
    /// Set after a change could not be applied: the next one refetches.
    var needsRefetch = false

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

    private func makeSections(_ rows: [ResultRow]) -> [ResultSection] {
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

    // MARK: Changes made in this process

    /// Applies one commit's changes; `nil` when none concerns these results.
    func apply(_ changes: StorageChanges, _ context: StorageContext) throws(StorageError) -> EngineChanges? {
        if changes.fromAnotherProcess || !changes.resetEntities.isEmpty || needsRefetch || query.fetchLimit != nil {
            if !changes.fromAnotherProcess && changes.resetEntities.isEmpty && !needsRefetch
                && changes.objects(of: schema.name).isEmpty {
                return nil
            }
            return try refetch(context)
        }
        let ids = changes.objects(of: schema.name)
        if ids.isEmpty { return nil }
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
        var olds: [(row: ResultRow, flat: Int, path: IndexPath, serial: Int)] = []
        for id in ids {
            guard let row = byID[id] else { continue }
            guard let flat = index(of: row) else { return try refetch(context) }
            let path = indexPath(ofFlat: flat)
            olds.append((row, flat, path, sections[path.section].serial))
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
        var news: [(row: ResultRow, flat: Int, path: IndexPath, serial: Int)] = []
        for row in fresh {
            guard let flat = index(of: row) else { return try refetch(context) }
            let path = indexPath(ofFlat: flat)
            news.append((row, flat, path, sections[path.section].serial))
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
        var oldByID: [Int64: (rank: Int, entry: (row: ResultRow, flat: Int, path: IndexPath, serial: Int))] = [:]
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
    private func rowChanges(_ row: ResultRow, old: IndexPath, new: IndexPath, stays: Bool,
                            movable: Bool) -> [EngineChanges.RowChange] {
        if stays { return [.init(kind: .update, row: row, old: old, new: new)] }
        if movable { return [.init(kind: .move, row: row, old: old, new: new)] }
        return [.init(kind: .delete, row: row, old: old, new: nil), .init(kind: .insert, row: row, old: nil, new: new)]
    }

    // MARK: Refetch and compare

    /// Fetches every row again and reports the difference from the rows held.
    func refetch(_ context: StorageContext) throws(StorageError) -> EngineChanges? {
        let fresh = try fetchAll(context)
        return replace(with: fresh)
    }

    /// Replaces the query and refetches, reporting the difference.
    func change(query: CompiledQuery, _ context: StorageContext) throws(StorageError) -> EngineChanges? {
        let previous = self.query
        self.query = query
        do {
            return try refetch(context)
        } catch {
            self.query = previous
            throw error
        }
    }

    /// Makes `fresh` (in order) the rows held and returns what changed.
    func replace(with fresh: [ResultRow]) -> EngineChanges? {
        let oldRows = rows
        let oldSections = sections
        let oldByID = byID
        rows = fresh
        byID = Dictionary(uniqueKeysWithValues: fresh.map { ($0.rowID, $0) })
        needsRefetch = false

        // Sections: those whose key is in both keep their serial if they stay in order.
        var newSections = query.sectionIndex == nil ? [] : makeSections(fresh)
        if query.sectionIndex == nil {
            let serial = oldSections.first?.serial ?? { nextSerial += 1; return nextSerial }()
            newSections = [ResultSection(key: .null, start: 0, count: fresh.count, serial: serial)]
        } else {
            var oldIndexByKey: [StorageValue: Int] = [:]
            for (index, section) in oldSections.enumerated() { oldIndexByKey[section.key] = index }
            var matched: [(newIndex: Int, oldIndex: Int)] = []
            for (index, section) in newSections.enumerated() {
                if let old = oldIndexByKey[section.key] { matched.append((index, old)) }
            }
            // `matched` is in new order; keep the longest run that is in old order too.
            for position in increasingRun(matched.map(\.oldIndex)) {
                let (newIndex, oldIndex) = matched[position]
                let section = newSections[newIndex]
                newSections[newIndex] = ResultSection(key: section.key, start: section.start, count: section.count,
                                                      serial: oldSections[oldIndex].serial)
            }
        }
        sections = newSections

        var result = EngineChanges()
        let newSerials = Set(newSections.map(\.serial))
        let oldSerials = Set(oldSections.map(\.serial))
        var oldSectionOfFlat: [Int] = []
        oldSectionOfFlat.reserveCapacity(oldRows.count)
        for (index, section) in oldSections.enumerated() {
            oldSectionOfFlat.append(contentsOf: repeatElement(index, count: section.count))
        }
        for (index, section) in oldSections.enumerated() where !newSerials.contains(section.serial) {
            result.sections.append(.init(kind: .delete, index: index, key: section.key,
                                         rows: Array(oldRows[section.start..<(section.start + section.count)])))
        }
        for (index, section) in newSections.enumerated() where !oldSerials.contains(section.serial) {
            result.sections.append(.init(kind: .insert, index: index, key: section.key,
                                         rows: Array(fresh[section.start..<(section.start + section.count)])))
        }

        // Rows: old flat index of each id, then the survivors in old order.
        var oldFlatByID: [Int64: Int] = [:]
        oldFlatByID.reserveCapacity(oldRows.count)
        for (flat, row) in oldRows.enumerated() { oldFlatByID[row.rowID] = flat }
        var newSectionOfFlat: [Int] = []
        newSectionOfFlat.reserveCapacity(fresh.count)
        for (index, section) in newSections.enumerated() {
            newSectionOfFlat.append(contentsOf: repeatElement(index, count: section.count))
        }
        func oldPath(_ flat: Int) -> IndexPath {
            let section = oldSectionOfFlat[flat]
            return IndexPath(row: flat - oldSections[section].start, section: section)
        }
        func newPath(_ flat: Int) -> IndexPath {
            let section = newSectionOfFlat[flat]
            return IndexPath(row: flat - newSections[section].start, section: section)
        }

        // New flat index of each old row that survives, in old order.
        var newFlatOfOld = [Int](repeating: -1, count: oldRows.count)
        for (flat, row) in fresh.enumerated() {
            if let old = oldFlatByID[row.rowID] { newFlatOfOld[old] = flat }
        }
        var candidates: [(oldFlat: Int, newFlat: Int)] = []
        for (oldFlat, newFlat) in newFlatOfOld.enumerated() where newFlat >= 0 {
            let oldSerial = oldSections[oldSectionOfFlat[oldFlat]].serial
            let newSerial = newSections[newSectionOfFlat[newFlat]].serial
            if oldSerial == newSerial { candidates.append((oldFlat, newFlat)) }
        }
        var stays = [Bool](repeating: false, count: oldRows.count)
        for position in increasingRun(candidates.map(\.newFlat)) { stays[candidates[position].oldFlat] = true }

        for (oldFlat, row) in oldRows.enumerated().reversed() where newFlatOfOld[oldFlat] < 0 {
            result.rows.append(.init(kind: .delete, row: row, old: oldPath(oldFlat), new: nil))
        }
        for (newFlat, row) in fresh.enumerated() {
            guard let oldFlat = oldFlatByID[row.rowID] else {
                result.rows.append(.init(kind: .insert, row: row, old: nil, new: newPath(newFlat)))
                continue
            }
            if stays[oldFlat] {
                if let old = oldByID[row.rowID], old.values != row.values {
                    result.rows.append(.init(kind: .update, row: row, old: oldPath(oldFlat), new: newPath(newFlat)))
                }
            } else {
                let movable = newSerials.contains(oldSections[oldSectionOfFlat[oldFlat]].serial)
                    && oldSerials.contains(newSections[newSectionOfFlat[newFlat]].serial)
                result.rows += rowChanges(row, old: oldPath(oldFlat), new: newPath(newFlat), stays: false, movable: movable)
            }
        }
        return result.isEmpty ? nil : result
    }
}

/// The positions of a longest strictly increasing run (subsequence) of `values`, in order.
///
/// Patience sorting with a fast path: a value above the current longest run's end extends it without
/// a search, so mostly ordered input (live results after a few changes) costs O(n), and each value out
/// of order O(log n).
func increasingRun(_ values: [Int]) -> [Int] {
    guard !values.isEmpty else { return [] }
    var tails: [Int] = []          // position of the smallest end of a run of each length
    var previous = [Int](repeating: -1, count: values.count)
    for (position, value) in values.enumerated() {
        if let last = tails.last, values[last] >= value {
            var low = 0, high = tails.count - 1
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            previous[position] = low > 0 ? tails[low - 1] : -1
            tails[low] = position
        } else {
            previous[position] = tails.last ?? -1
            tails.append(position)
        }
    }
    var run: [Int] = []
    var position = tails[tails.count - 1]
    while position >= 0 {
        run.append(position)
        position = previous[position]
    }
    return run.reversed()
}

extension StorageValue {
    /// SQLite's order of two values with the BINARY collation: `NULL` first, then numbers (integers and
    /// reals compared by value), then text (byte by byte in UTF-8), then blobs. Negative, zero or positive.
    package func sqliteOrder(_ other: StorageValue) -> Int {
        switch (self, other) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case let (.integer(a), .integer(b)): return a < b ? -1 : (a == b ? 0 : 1)
        case let (.real(a), .real(b)): return a < b ? -1 : (a == b ? 0 : 1)
        case let (.integer(a), .real(b)): return Self.compare(a, b)
        case let (.real(a), .integer(b)): return -Self.compare(b, a)
        case (.integer, _), (.real, _): return -1
        case (_, .integer), (_, .real): return 1
        case let (.text(a), .text(b)): return Self.compareBytes(a.utf8, b.utf8)
        case (.text, .blob): return -1
        case (.blob, .text): return 1
        case let (.blob(a), .blob(b)): return Self.compareBytes(a, b)
        }
    }

    /// An integer and a real compared exactly, as SQLite does.
    private static func compare(_ integer: Int64, _ real: Double) -> Int {
        if real >= 9_223_372_036_854_775_808.0 { return -1 }
        if real < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = real.rounded(.down)
        let truncated = Int64(whole)
        if integer != truncated { return integer < truncated ? -1 : 1 }
        return real > whole ? -1 : 0
    }

    private static func compareBytes<C: Collection>(_ a: C, _ b: C) -> Int where C.Element == UInt8 {
        var left = a.makeIterator(), right = b.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }
}
