import Foundation

/// Decodes `Decodable` values from property lists in any format.
///
/// ```swift
/// let settings = try PlistDecoder().decode(Settings.self, from: data)
/// ```
public struct PlistDecoder: Sendable {
    /// Contextual information for `init(from:)` implementations.
    public nonisolated(unsafe) var userInfo: [CodingUserInfoKey: Any] = [:]
    /// Limits applied while reading.
    public var options = PlistReadOptions()

    public init() {}

    /// Decodes a value of `type` from a binary, XML or OpenStep property list.
    ///
    /// - Throws: `PlistError` for malformed input; `DecodingError` when the content does not match `type`.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        throw PlistError(.unknownFormat, "not written yet")
    }
}
