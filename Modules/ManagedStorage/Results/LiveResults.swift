import Foundation

/// An engine with its entity type and the storage it reads through: read-only copies, section
/// names, index paths.
final class LiveResults<Entity: StorageEntity> {
    let engine: ResultsEngine
    let context: StorageContext

    init(schema: EntitySchema, query: CompiledQuery, context: StorageContext) {
        self.engine = ResultsEngine(schema: schema, query: query)
        self.context = context
    }

    func fetch() throws(StorageError) {
        engine.load(try engine.fetchAll(context))
    }

    /// The read-only copy of `row`; `existing: false` for a row that is gone (its copy is made
    /// without registering an object for it).
    func readOnly(_ row: ResultRow, existing: Bool = true) -> Entity.ReadOnly {
        let object = context.object(engine.schema, rowID: row.rowID, checkedValues: row.values, registered: existing)
        // The schema makes objects of its own entity type.
        return unsafeDowncast(object, to: Entity.self).toReadOnly()
    }

    func sectionName(_ key: StorageValue) -> String {
        guard let index = engine.query.sectionIndex else { return "" }
        switch engine.schema.properties[index].kind {
        case .attribute(let info): return info.describe(key)
        default:
            if case .integer(let id) = key { return "\(id)" }
            return ""
        }
    }

    func sectionInfo(_ section: ResultSection) -> ResultsSectionInfo<Entity.ReadOnly> {
        let rows = engine.rows[section.start..<(section.start + section.count)]
        return ResultsSectionInfo(name: sectionName(section.key), numberOfObjects: section.count) { [self] in
            rows.map { readOnly($0) }
        }
    }

    /// The flat position of `indexPath`, or `nil` outside the results.
    func flatIndex(of indexPath: IndexPath) -> Int? {
        guard indexPath.count == 2, indexPath.section >= 0, indexPath.section < engine.sections.count else { return nil }
        let section = engine.sections[indexPath.section]
        guard indexPath.row >= 0, indexPath.row < section.count else { return nil }
        return section.start + indexPath.row
    }
}
