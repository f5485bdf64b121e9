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
        let node = try encodeToNode(value)
        switch outputFormat {
        case .binary: return try BinaryPlistWriter(mode: .foundation).write(node)
        case .xml: return try XMLPlistWriter(mode: .foundation).write(node)
        case .openStep:
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "OpenStep property lists cannot be written"))
        }
    }

    /// Encodes `value` to a `PlistValue` tree instead of bytes. Top-level scalars are allowed here.
    public func encodeToValue<T: Encodable>(_ value: T) throws -> PlistValue {
        let impl = PlistEncoderImpl(userInfo: userInfo)
        guard let node = try impl.wrap(value, path: .root) else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return PlistValue(node)
    }

    func encodeToNode<T: Encodable>(_ value: T) throws -> PlistNode {
        let impl = PlistEncoderImpl(userInfo: userInfo)
        guard let node = try impl.wrap(value, path: .root) else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        let kind: String?
        switch node {
        case .bool: kind = "a Bool"
        case .int, .wideInt, .float, .double: kind = "a number"
        case .string, .null: kind = "a String"
        case .date: kind = "a Date"
        default: kind = nil
        }
        if let kind {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "A property list cannot have \(kind) (\(T.self)) at the top level; wrap it in an array or a keyed type."))
        }
        return node
    }
}

extension PlistValue {
    /// Converts an encoder tree to a value (Codable `nil` becomes the string `$null`).
    init(_ node: PlistNode) {
        switch node {
        case .null: self = .string("$null")
        case .bool(let b): self = .bool(b)
        case .int(let v): self = .integer(PlistInteger(Int128(v), isWide: false))
        case .wideInt(let v): self = .integer(PlistInteger(v, isWide: true))
        case .float(let f): self = .float(f)
        case .double(let d): self = .real(d)
        case .string(let s): self = .string(s)
        case .date(let t): self = .date(Date(timeIntervalSinceReferenceDate: t))
        case .data(let d): self = .data(d)
        case .uid(let u): self = .uid(u)
        case .array(let box): self = .array(box.items.map(PlistValue.init))
        case .dictionary(let box): self = .dictionary(PlistDictionary(box.keys, box.values.map(PlistValue.init)))
        case .isolated(let inner): self = PlistValue(inner)
        }
    }
}
