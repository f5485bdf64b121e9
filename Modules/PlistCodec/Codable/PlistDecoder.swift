import Foundation

/// Decodes `Decodable` values from property lists in any format.
///
/// ```swift
/// let settings = try PlistDecoder().decode(Settings.self, from: data)
/// ```
///
/// It reads what `PropertyListDecoder` reads: the string `$null` decodes as `nil`, numbers convert
/// between integer and real kinds when the value fits exactly, and dictionary keys match by Swift
/// string equality.
// @unchecked Sendable: a value type; its one non-`Sendable` field, `userInfo`, is only handed to the types' own `init(from:)`, never changed by the decoder (as Foundation's `PropertyListDecoder`)
public struct PlistDecoder: @unchecked Sendable {
    /// Contextual information for `init(from:)` implementations.
    public var userInfo: [CodingUserInfoKey: Any] = [:]
    /// Limits applied while reading, such as the maximum nesting depth.
    public var options = PlistReadOptions()

    /// Creates a decoder with default options.
    public init() {}

    /// Decodes a value of `type` from a binary, XML or OpenStep property list.
    ///
    /// - Throws: `DecodingError`, as `PropertyListDecoder` does, so a ported `catch DecodingError`
    ///   sees every failure: `.dataCorrupted` with an empty coding path for malformed input, whose
    ///   `underlyingError` is the `PlistError` that says what is wrong and where (a byte offset, or a
    ///   line and column; `PlistError.found(in:)` fetches it); `.typeMismatch`, `.keyNotFound` and
    ///   the rest, with the coding path, when the content does not match `type`.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        // Binary and XML input is checked completely first (so malformed input gives the tree
        // reader's error wherever it is), then decoded in place: no `PlistValue` tree.
        switch PlistFormat.detect(data) {
        case .binary:
            let store: BinaryDecodingStore
            do {
                store = try BinaryDecodingStore(copying: data, options: options)
            } catch is PlistError {
                // No binary trailer: Foundation reads such bytes as OpenStep text, as the tree does.
                return try decodeThroughTree(type, from: data)
            }
            try Self.reportingMalformed { try store.validate(options) }
            let decoder = FlatDecoder(store: store, node: store.topObject, path: .root, userInfo: userInfo, realsAreText: false)
            return try decoder.unwrap(store.topObject, as: type, path: .root)
        case .xml:
            let index = try Self.reportingMalformed { try XMLDecodingIndex.scan(data, options: options) }
            // Text formats hold reals as decimal text, which Foundation rounds to `Float`.
            let decoder = FlatDecoder(store: index, node: index.root, path: .root, userInfo: userInfo, realsAreText: true)
            return try decoder.unwrap(index.root, as: type, path: .root)
        case .openStep:
            return try decodeThroughTree(type, from: data)
        }
    }

    /// Decodes through a `PlistValue` tree: OpenStep text, and bytes that only look binary.
    private func decodeThroughTree<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let value = try Self.reportingMalformed { try PlistValue(parsing: data, options: options) }
        let impl = PlistDecoderImpl(value: value, path: .root, userInfo: userInfo)
        // Text formats hold reals as decimal text, which Foundation rounds to `Float`; binary files
        // hold doubles, which convert to `Float` only when exact.
        impl.realsAreText = PlistFormat.detect(data) != .binary
        return try impl.unwrap(value, as: type, path: .root)
    }

    /// Runs `body`, turning a `PlistError` into the `DecodingError` `PropertyListDecoder` throws
    /// for bytes that are not a property list.
    private static func reportingMalformed<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as PlistError {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "The given data was not a valid property list: \(error)", underlyingError: error))
        }
    }

    /// Decodes a value of `type` from a value tree.
    ///
    /// ```swift
    /// let value = try PlistValue(parsing: data)
    /// let settings = try PlistDecoder().decode(Settings.self, from: value)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - value: The property list, already read.
    /// - Returns: The decoded value.
    /// - Throws: `DecodingError` (`typeMismatch`, `keyNotFound`, `valueNotFound`, `dataCorrupted`) when
    ///   `value` does not match `type`, or what `type`'s `init(from:)` throws.
    public func decode<T: Decodable>(_ type: T.Type, from value: PlistValue) throws -> T {
        let impl = PlistDecoderImpl(value: value, path: .root, userInfo: userInfo)
        return try impl.unwrap(value, as: type, path: .root)
    }
}

extension PlistValue {
    /// Whether this is the string Codable writes for `nil`.
    var isNullMarker: Bool {
        if case .string(let s) = self { return s == "$null" }
        return false
    }
}
