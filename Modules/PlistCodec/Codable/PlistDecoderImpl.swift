import Foundation

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
