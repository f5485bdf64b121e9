import Foundation

/// The identifier of one stored object: its entity and its row. `Sendable`, so it can be passed between
/// operations and loaded again with ``StorageType/loadObject(ofType:with:)``.
///
/// ```swift
/// let id = try manager.writeAndWait { storage in
///     let order = storage.insertNewObject(ofType: Order.self)
///     order.orderID = 7
///     storage.saveIfNeeded()
///     return order.objectID      // permanent once saved
/// }
/// let order = manager.viewStorage.loadObject(ofType: Order.self, with: id)
/// ```
///
/// An identifier taken before the object's first save is temporary (``isTemporary``) and loads
/// nothing in another storage.
public struct StorageObjectID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The entity's name.
    public let entityName: String
    /// The row's identifier; negative for an object not yet saved (a temporary identifier).
    public let rowID: Int64

/// The identifier of row `rowID` of the table `entityName`: for an identifier kept as its two parts
/// (the ``description``, `Order/12`, read back); the object need not exist.
///
/// - Parameters:
///   - entityName: The entity's name (``StorageEntity/entityName``).
///   - rowID: The row's identifier.
    public init(entityName: String, rowID: Int64) {
        self.entityName = entityName
        self.rowID = rowID
    }

    /// Whether this is the temporary identifier of an object that was not saved yet.
    public var isTemporary: Bool { rowID < 0 }

    public var description: String { "\(entityName)/\(rowID)" }
}
