import Foundation

/// Encodes `Encodable` values as property lists, byte for byte as `Foundation.PropertyListEncoder` does.
///
/// ```swift
/// let encoder = PlistEncoder()
/// encoder.outputFormat = .xml
/// let data = try encoder.encode(settings)
/// ```
///
/// Differences from `PropertyListEncoder`, each where Foundation loses data or is not deterministic:
/// `0.0` and `-0.0` are kept apart, strings that differ only in Unicode normalization are kept apart,
/// and the keys of a `Dictionary` whose keys are not `String` are sorted.
public struct PlistEncoder: Sendable {
    /// The output format: `.binary` (the default) or `.xml`.
    public var outputFormat: PlistFormat = .binary
    /// Contextual information for `encode(to:)` implementations.
    public nonisolated(unsafe) var userInfo: [CodingUserInfoKey: Any] = [:]

    public init() {}

    /// Encodes `value` as a property list.
    ///
    /// - Throws: `EncodingError.invalidValue` for a top-level Bool, number, String, Date or nil
    ///   (as `PropertyListEncoder`), or when the format cannot hold a value.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "not written yet"))
    }
}
