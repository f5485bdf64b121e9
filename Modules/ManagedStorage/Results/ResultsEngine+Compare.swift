import Foundation

extension ResultsEngine {
    // MARK: Refetch and compare

    /// Fetches every row again and reports the difference from the rows held.
    func refetch(_ context: StorageContext) throws(StorageError) -> EngineChanges? {
        refetches += 1
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
