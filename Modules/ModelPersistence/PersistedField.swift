import Foundation
import PlistCodec

/// One persisted property: its key in the file, earlier keys it may be found under, and how to move
/// its value between the instance and a `PlistValue`.
///
/// `@PersistedModel` writes one per stored property, in declaration order; for a class `Settings`
/// with `var theme: String` and `var launches: Int`:
///
/// ```swift
/// public static var _$persistedFields: [ModelPersistence.PersistedField<Settings>] {
///     [
///         ModelPersistence.PersistedField(key: "theme", previousKeys: [], storage: \Settings._theme,
///                                         observed: \Settings.theme),
///         ModelPersistence.PersistedField(key: "launches", previousKeys: [], storage: \Settings._launches,
///                                         observed: \Settings.launches),
///     ]
/// }
/// ```
// @unchecked Sendable: immutable; its closures capture only key paths (and an optional's `nil`) and keep no state: calling one is as safe as the model access it makes
public struct PersistedField<Model: AnyObject>: @unchecked Sendable {
    /// The key in the file.
    public let key: String
    /// Keys the property was stored under before a rename, tried in order when `key` is missing.
    public let previousKeys: [String]
    /// Encodes the current value; `nil` for an optional that is `nil`, which is left out of the file
    /// (as a synthesized `Codable` conformance leaves it out).
    let encode: (Model) throws -> PlistValue?
    /// Decodes a value and assigns it to the backing storage, notifying observers.
    let assign: (Model, PlistValue) throws -> Void
    /// Sets an optional property to `nil`, notifying observers; `nil` for a property that is not optional.
    let assignNil: ((Model) -> Void)?
    /// Tells Observation the property will change, without touching its value (which the next get
    /// brings in): how another process's change reaches `withObservationTracking` off the pool.
    let announce: (Model) -> Void

    /// Describes a property whose value lives in `storage` and is observed as `observed`.
    public init<Value: Codable>(key: String, previousKeys: [String] = [],
                                storage: ReferenceWritableKeyPath<Model, Value>,
                                observed: KeyPath<Model, Value>) where Model: PersistedModel, Model._PersistedRoot == Model {
        self.key = key
        self.previousKeys = previousKeys
        encode = { model in
            let value = model[keyPath: storage]
            if let optional = value as? any OptionalValue, optional.isNone { return nil }
            return try PlistEncoder().encodeToValue(value)
        }
        assign = { model, value in
            let decoded = try PlistDecoder().decode(Value.self, from: value)
            model.withMutation(keyPath: observed) { model[keyPath: storage] = decoded }
        }
        announce = { model in model.withMutation(keyPath: observed) {} }
        if let none = (Value.self as? any OptionalValue.Type)?.noneValue as? Value {
            assignNil = { model in model.withMutation(keyPath: observed) { model[keyPath: storage] = none } }
        } else {
            assignNil = nil
        }
    }

    /// The property's value in `document`: under its key, else under the first previous key present.
    func value(in document: PlistDictionary) -> PlistValue? {
        if let value = document[key] { return value }
        for old in previousKeys { if let value = document[old] { return value } }
        return nil
    }
}
