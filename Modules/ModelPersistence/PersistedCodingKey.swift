/// A key of a persisted model's file, as `Codable` sees it: the string the file uses.
///
/// `@PersistedModel` generates the model's `encode(to:)` and `init(from:)` with these keys, so a model
/// encoded with `PropertyListEncoder` has the same keys as its file (the property's name, or the raw
/// value its `@ModelCodingKey` enum gives it). Not meant to be used directly.
///
/// What it means for a user: a model encodes to the bytes of its file, keys included.
///
/// ```swift
/// @PersistedModel
/// final class Settings {
///     var launches: Int = 0
/// }
/// let bytes = try PropertyListEncoder().encode(Settings())   // a dictionary with the key "launches"
/// ```
public struct PersistedCodingKey: CodingKey, ExpressibleByStringLiteral, Sendable {
    /// The key in the file.
    public let stringValue: String

    /// A key is always a string; `intValue` is always `nil`.
    public var intValue: Int? { nil }

    /// The key `stringValue`.
    public init(stringValue: String) { self.stringValue = stringValue }

    /// Integer keys are not used: property-list dictionaries have string keys.
    public init?(intValue: Int) { nil }

    /// The key written as a string literal.
    public init(stringLiteral value: String) { self.stringValue = value }
}

extension KeyedDecodingContainer where Key == PersistedCodingKey {
    /// The value under `key`, else under the first of `previousKeys` present; `nil` when none is
    /// present (or the value is null). Used by the `init(from:)` that `@PersistedModel` generates.
    public func _decodePersisted<T: Decodable>(_ type: T.Type, key: String, previousKeys: [String]) throws -> T? {
        for candidate in [key] + previousKeys {
            let codingKey = PersistedCodingKey(stringValue: candidate)
            if contains(codingKey) { return try decodeIfPresent(type, forKey: codingKey) }
        }
        return nil
    }

    /// The value under `key` or one of `previousKeys`; `DecodingError.keyNotFound` naming `key` when
    /// none is present (a property without an initial value has nothing else to take).
    public func _decodeRequiredPersisted<T: Decodable>(_ type: T.Type, key: String, previousKeys: [String]) throws -> T {
        if let value = try _decodePersisted(type, key: key, previousKeys: previousKeys) { return value }
        throw DecodingError.keyNotFound(PersistedCodingKey(stringValue: key), DecodingError.Context(
            codingPath: codingPath,
            debugDescription: "the file has no value for \"\(key)\"" + (previousKeys.isEmpty ? "" : " (nor under \(previousKeys))")
                + " and the property has no initial value"))
    }
}

extension KeyedDecodingContainer where Key == PersistedCodingKey {
    /// Assigns the value under `key` or one of `previousKeys` to `value`, which keeps its initial value
    /// when none is present.
    public func _decodePersisted<T: Decodable>(into value: inout T, key: String, previousKeys: [String]) throws {
        if let decoded = try _decodePersisted(T.self, key: key, previousKeys: previousKeys) { value = decoded }
    }
}

extension KeyedEncodingContainer where Key == PersistedCodingKey {
    /// Encodes `value` under `key`, leaving out an optional that is `nil` (as the file does, and as a
    /// synthesized conformance does). Used by the `encode(to:)` that `@PersistedModel` generates.
    public mutating func _encodePersisted<T: Encodable>(_ value: T, forKey key: String) throws {
        if let optional = value as? any OptionalValue, optional.isNone { return }
        try encode(value, forKey: PersistedCodingKey(stringValue: key))
    }
}
