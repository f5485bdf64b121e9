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
    public func decode<T: Decodable>(_ type: T.Type, from value: PlistValue) throws -> T {
        let impl = PlistDecoderImpl(value: value, path: .root, userInfo: userInfo)
        return try impl.unwrap(value, as: type, path: .root)
    }
}

/// The `Decoder` behind `PlistDecoder`, reading a `PlistValue` tree.
final class PlistDecoderImpl: Decoder {
    var value: PlistValue
    var path: CodingPathNode
    let userInfo: [CodingUserInfoKey: Any]
    /// Whether reals came from text (XML, OpenStep): they then round to `Float` instead of converting exactly.
    var realsAreText = false

    init(value: PlistValue, path: CodingPathNode, userInfo: [CodingUserInfoKey: Any]) {
        self.value = value
        self.path = path
        self.userInfo = userInfo
    }

    var codingPath: [any CodingKey] { path.path }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let dict) = value else {
            throw mismatch([String: Any].self, value, path)
        }
        return KeyedDecodingContainer(PlistKeyedDecodingContainer<Key>(decoder: self, dict: dict, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else {
            throw mismatch([Any].self, value, path)
        }
        return PlistUnkeyedDecodingContainer(decoder: self, items: items, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// Decodes `type` from `value`, descending with this decoder instead of allocating a new one.
    func unwrap<T: Decodable>(_ value: PlistValue, as type: T.Type, path newPath: CodingPathNode) throws -> T {
        if T.self == Date.self {
            guard case .date(let d) = value else { throw mismatch(Date.self, value, newPath) }
            return d as! T
        }
        if T.self == Data.self {
            guard case .data(let d) = value else { throw mismatch(Data.self, value, newPath) }
            return d as! T
        }
        let savedValue = self.value, savedPath = path
        self.value = value
        path = newPath
        defer { self.value = savedValue; path = savedPath }
        return try T(from: self)
    }

    func mismatch(_ expected: Any.Type, _ found: PlistValue, _ path: CodingPathNode) -> DecodingError {
        if case .string(let s) = found, s == "$null" {
            return .valueNotFound(expected, .init(codingPath: path.path, debugDescription: "Expected \(expected) but found null instead."))
        }
        return .typeMismatch(expected, .init(codingPath: path.path, debugDescription: "Expected to decode \(expected) but found a \(found.kindName) instead."))
    }
}

extension PlistValue {
    /// Whether this is the string Codable writes for `nil`.
    var isNullMarker: Bool {
        if case .string(let s) = self { return s == "$null" }
        return false
    }
}
