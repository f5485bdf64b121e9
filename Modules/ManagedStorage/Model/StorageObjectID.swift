import Foundation

/// The identifier of one stored object: its entity and its row. `Sendable`, so it can be passed between
/// operations and loaded again with ``StorageType/loadObject(ofType:with:)``.
public struct StorageObjectID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The entity's name.
    public let entityName: String
    /// The row's identifier; negative for an object not yet saved (a temporary identifier).
    public let rowID: Int64

    public init(entityName: String, rowID: Int64) {
        self.entityName = entityName
        self.rowID = rowID
    }

    /// Whether this is the temporary identifier of an object that was not saved yet.
    public var isTemporary: Bool { rowID < 0 }

    public var description: String { "\(entityName)/\(rowID)" }
}
