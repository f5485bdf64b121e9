/// One schema version: an identifier recorded in the store once applied, and how the store changes.
///
/// A version is one of:
/// - ``inferred(_:entities:)``: the changes are inferred from the declarations (nothing to write);
///   listing it records the identifier, so an older program refuses the store it leaves;
/// - ``custom(_:from:to:stage:)``: Swift code that moves values from the old model to the new one
///   (split a name in two, compute a new attribute), given a storage of each;
/// - ``init(_:migrate:)``: SQL of your own against the table layout (see
///   <doc:ChangingTheModel>).
///
/// The pending versions of a store run in order, then the changes inferred from the current
/// declarations, in one SQLite transaction: if any of it fails, it is rolled back, the store is
/// exactly what it was before, and the error reaches the caller (``StorageError/migrationFailed(version:underlying:)``,
/// or the typed error of an inferred change, such as ``StorageError/migrationNeedsDefault(entity:attribute:)``).
///
/// The versions are listed, oldest first, in the ``StorageModel`` beside the current entities:
///
/// ```swift
/// let splitName = StorageSchemaVersion.custom("2-split-name", from: [ContactV1.self],
///                                             to: [ContactV2.self]) { old, new in
///     for contact in old.allObjects(ofType: ContactV1.self) {
///         let parts = contact.name.split(separator: " ", maxSplits: 1).map(String.init)
///         guard let copy = new.loadObject(ofType: ContactV2.self, with: contact.objectID) else { continue }
///         copy.givenName = parts.first ?? ""
///         copy.familyName = parts.count > 1 ? parts[1] : ""
///     }
/// }
/// let manager = try SQLiteStorageManager(
///     model: StorageModel(entities: [ContactV2.self], versions: [splitName]),
///     configuration: StorageConfiguration(name: "Contacts", appName: "Example"))
/// ```
public struct StorageSchemaVersion: Sendable {
    /// The identifier recorded in the store once the version is applied.
    public let identifier: String
    let change: Change

    enum Change: Sendable {
        case sql(@Sendable (SchemaDatabase) throws -> Void)
        case inferred([any StorageEntity.Type]?)
        case custom(from: [any StorageEntity.Type], to: [any StorageEntity.Type],
                    stage: @Sendable (StorageType, StorageType) throws -> Void)
    }

    /// A version named `identifier` whose change is the SQL `migrate` runs.
    ///
    /// ```swift
    /// StorageSchemaVersion("4-status-index") { db in
    ///     try db.execute(sql: #"CREATE INDEX "Order_status_text" ON "Order"("status")"#)
    /// }
    /// ```
    ///
    /// It runs before the inferred changes of the current declarations, in the store's layout at that
    /// point; foreign keys are checked when it ends.
    ///
    /// - Parameters:
    ///   - identifier: Recorded in the store once applied: a program that does not list it refuses the
    ///     store.
    ///   - migrate: The SQL, through a ``SchemaDatabase``; an error it throws fails the migration with
    ///     ``StorageError/migrationFailed(version:underlying:)`` and the store is restored.
    public init(_ identifier: String, migrate: @escaping @Sendable (SchemaDatabase) throws -> Void) {
        self.identifier = identifier
        self.change = .sql(migrate)
    }

    /// A version whose changes are inferred.
    ///
    /// - Parameters:
    ///   - identifier: Recorded in the store: a program that does not list it refuses the store.
    ///   - entities: The model of this version, when later versions need the store brought to it
    ///     first (a custom stage after it); `nil` (the default) infers nothing here: the changes are
    ///     inferred once, to the next model listed or to the current declarations.
    public static func inferred(_ identifier: String, entities: [any StorageEntity.Type]? = nil) -> Self {
        Self(identifier: identifier, change: .inferred(entities))
    }

    /// A version with Swift code of its own, for what cannot be inferred.
    ///
    /// The store is first brought to `from` (inferred), then given what `to` adds: its new tables,
    /// new columns (a non-optional one without default is added as optional for now) and renames.
    /// `stage` then runs with a storage of each model on the same transaction: read through `old`,
    /// write through `new`; an object has the same ``StorageObjectID`` in both. Then the store is
    /// brought to `to` (dropped columns, tightened types): a non-optional column `stage` left empty
    /// fails with ``StorageError/migrationNeedsValue(entity:attribute:rows:)``.
    ///
    /// The old model's entities are separate classes (nested in an enum per version, say) whose
    /// `@StorageEntity(name:)` is the table they had then.
    ///
    /// - Parameters:
    ///   - identifier: Recorded in the store once applied.
    ///   - from: The entities of the version before.
    ///   - to: The entities of this version (the current declarations, for the last one).
    ///   - stage: Moves the values; throwing fails the whole migration, and the store is restored.
    public static func custom(_ identifier: String, from: [any StorageEntity.Type], to: [any StorageEntity.Type],
                              stage: @escaping @Sendable (_ old: StorageType, _ new: StorageType) throws -> Void) -> Self {
        Self(identifier: identifier, change: .custom(from: from, to: to, stage: stage))
    }

    private init(identifier: String, change: Change) {
        self.identifier = identifier
        self.change = change
    }

    /// The entity models this version names (for the tables the toolkit owns).
    var models: [[any StorageEntity.Type]] {
        switch change {
        case .sql: []
        case .inferred(let entities): entities.map { [$0] } ?? []
        case .custom(let from, let to, _): [from, to]
        }
    }
}
