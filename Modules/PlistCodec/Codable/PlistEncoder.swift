import Foundation

/// Encodes `Encodable` values as property lists, byte for byte as `Foundation.PropertyListEncoder` does.
///
/// ```swift
/// var encoder = PlistEncoder()
/// encoder.outputFormat = .xml
/// let data = try encoder.encode(settings)
/// ```
///
/// Differences from `PropertyListEncoder`, each where Foundation loses data or is not deterministic:
/// `0.0` and `-0.0` are kept apart, strings that differ only in Unicode normalization are kept apart,
/// and the entries of a `Dictionary` whose keys are not `String` are sorted (by key for `Int` and
/// `CodingKeyRepresentable` keys, by the keys' encoded bytes otherwise).
// @unchecked Sendable: a value type; its one non-`Sendable` field, `userInfo`, is only handed to the values' own `encode(to:)`, never changed by the encoder (as Foundation's `PropertyListEncoder`)
public struct PlistEncoder: @unchecked Sendable {
    /// The output format: `.binary` (the default) or `.xml`. `.openStep` cannot be written.
    public var outputFormat: PlistFormat = .binary
    /// Contextual information for `encode(to:)` implementations.
    public var userInfo: [CodingUserInfoKey: Any] = [:]

    /// Creates an encoder that writes binary property lists.
    public init() {}

    /// Encodes `value` as a property list.
    ///
    /// - Throws: `EncodingError.invalidValue` for a top-level `Bool`, number, `String`, `Date` or
    ///   `nil` (as `PropertyListEncoder` does), or a value that encodes nothing; `PlistError` when the
    ///   format cannot hold a value (an XML date that is not finite).
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        let (arena, root) = try encodeToArena(value)
        switch outputFormat {
        case .binary: return ArenaBinaryWriter(arena: arena).write(root: root)
        case .xml: return try ArenaXMLWriter(arena: arena).write(root: root)
        case .openStep:
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "OpenStep property lists cannot be written"))
        }
    }

    /// Encodes `value` to a `PlistValue` tree instead of bytes. Top-level scalars are allowed here.
    ///
    /// ```swift
    /// let tree = try PlistEncoder().encodeToValue(Settings(name: "Ada", launches: 3))
    /// ```
    ///
    /// - Parameter value: The value to encode.
    /// - Returns: The property list as a value tree.
    /// - Throws: `EncodingError.invalidValue` when `value` encodes nothing, or what `value`'s
    ///   `encode(to:)` throws.
    public func encodeToValue<T: Encodable>(_ value: T) throws -> PlistValue {
        let arena = EncodingArena()
        let impl = PlistEncoderImpl(userInfo: userInfo, arena: arena)
        let node = try impl.wrap(value, path: .root)
        guard node >= 0 else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return arena.value(of: node)
    }

    /// Encodes `value` into a new arena and returns it with the root node, refusing what
    /// `PropertyListEncoder` refuses at the top level.
    func encodeToArena<T: Encodable>(_ value: T) throws -> (EncodingArena, Int32) {
        let arena = EncodingArena()
        let impl = PlistEncoderImpl(userInfo: userInfo, arena: arena)
        let node = try impl.wrap(value, path: .root)
        guard node >= 0 else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        let kind: String?
        switch arena.nodes[Int(node)].kind {
        case .bool: kind = "a Bool"
        case .int, .wideInt, .float, .double: kind = "a number"
        case .string, .null: kind = "a String"
        case .date: kind = "a Date"
        default: kind = nil
        }
        if let kind {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "A property list cannot have \(kind) (\(T.self)) at the top level; wrap it in an array or a keyed type."))
        }
        return (arena, node)
    }
}
