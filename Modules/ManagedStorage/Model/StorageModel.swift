import Foundation
import GRDB

/// The entities a store holds and the schema versions it went through.
///
/// The entities' declarations are the current schema. A new store is created from them directly, and
/// every listed version counts as applied. An existing store runs, in order, the versions it has not
/// applied yet, then the changes inferred from the declarations (an added, removed or renamed
/// attribute, relationship or entity), all of it as one unit; afterwards its tables must be what the
/// declarations make them.
///
/// Most changes need no version at all: change the entity, and the store follows at the next open.
/// List a version for what cannot be inferred (a custom stage), for SQL of your own, or to mark a
/// released model so that older programs refuse the store:
///
/// ```swift
/// let model = StorageModel(entities: [Order.self, Customer.self], versions: [
///     .inferred("2-customers"),
///     .custom("3-split-name", from: [V2.Customer.self], to: [Customer.self]) { old, new in
///         for customer in old.allObjects(ofType: V2.Customer.self) {
///             let parts = customer.name.split(separator: " ", maxSplits: 1)
///             let copy = new.loadObject(ofType: Customer.self, with: customer.objectID)
///             copy?.givenName = parts.first.map(String.init) ?? ""
///             copy?.familyName = parts.dropFirst().first.map(String.init) ?? ""
///         }
///     },
/// ])
/// ```
public struct StorageModel: Sendable {
    /// The entity types, in the order given.
    public let entities: [any StorageEntity.Type]
    /// The schema versions after the first, oldest first.
    public let versions: [StorageSchemaVersion]

    /// A model of `entities` with the migrations `versions` (none for a first release).
    public init(entities: [any StorageEntity.Type], versions: [StorageSchemaVersion] = []) {
        self.entities = entities
        self.versions = versions
    }

    /// The entities with their relationships resolved, or the typed error that says what does not fit.
    func resolve() throws(StorageError) -> ResolvedModel {
        try ResolvedModel(entities)
    }
}
