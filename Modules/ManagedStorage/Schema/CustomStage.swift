import GRDB
import SQLiteSupport

/// Runs a custom migration stage: a storage of the old model and one of the new, both writing in the
/// migration's transaction.
///
/// When it runs, the store has both models' tables and columns (the new model's additions were made,
/// nothing was dropped yet), so each storage reads and writes its own. Where the new model renamed a
/// table or a column, the old model's entity reaches it under the new name: an object has the same
/// ``StorageObjectID`` in both storages.
struct CustomStage {
    let old: [any StorageEntity.Type]
    let new: ResolvedModel
    let report: @Sendable (StorageError) -> Void

    func run(_ db: Database, _ stage: (StorageType, StorageType) throws -> Void) throws {
        var placement: [String: TablePlacement] = [:]
        for type in old {
            if let placed = Self.placement(of: type, in: new.designs) { placement[type.entityName] = placed }
        }
        let oldModel = try ResolvedModel(old, placedAs: placement)
        // The stage's own statements, finalized before the rest of the migration drops or rebuilds tables.
        let cache = StatementCache<StorageError>()
        let oldStorage = StorageContext(model: oldModel, access: .writer(try ContextStatements(cache: cache, on: db)), report: report)
        let newStorage = StorageContext(model: new, access: .writer(try ContextStatements(cache: cache, on: db)), report: report)
        newStorage.fillsNewColumns = true
        defer {
            oldStorage.end()
            newStorage.end()
            cache.finalize()
        }
        try stage(oldStorage, newStorage)
        oldStorage.flush()
        newStorage.flush()
        if let error = oldStorage.errors.first ?? newStorage.errors.first { throw error }
    }

    /// Where the old entity `type`'s rows are once the new model's renames were made, if not where it
    /// declares them.
    static func placement(of type: any StorageEntity.Type, in designs: [TableDesign]) -> TablePlacement? {
        let name = type.entityName
        guard let design = designs.first(where: { $0.originalName == name }) ?? designs.first(where: { $0.name == name }) else {
            return nil
        }
        var columns: [String: String] = [:]
        for property in Self.propertyNames(type) {
            if let column = design.columns.first(where: { $0.originalName == property }), column.name != property {
                columns[property] = column.name
            }
        }
        guard design.name != name || !columns.isEmpty else { return nil }
        return TablePlacement(table: design.name, columns: columns)
    }

    private static func propertyNames(_ type: any StorageEntity.Type) -> [String] {
        func names<T: StorageEntity>(_ type: T.Type) -> [String] { T._$properties.map(\.name) }
        return names(type)
    }
}
