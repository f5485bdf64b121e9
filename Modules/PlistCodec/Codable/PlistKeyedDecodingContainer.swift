import Foundation

struct PlistKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: PlistDecoderImpl
    let dict: PlistDictionary
    let path: CodingPathNode
    /// Built for large dictionaries, where a linear scan per key would be quadratic.
    private let index: [String: Int]?

    init(decoder: PlistDecoderImpl, dict: PlistDictionary, path: CodingPathNode) {
        self.decoder = decoder
        self.dict = dict
        self.path = path
        if dict.count > 16 {
            var built = [String: Int](minimumCapacity: dict.count)
            for (i, k) in dict.keys.enumerated() where built[k] == nil { built[k] = i }
            index = built
        } else {
            index = nil
        }
    }

    var codingPath: [any CodingKey] { path.path }

    var allKeys: [Key] { dict.keys.compactMap { Key(stringValue: $0) } }

    private func position(_ key: Key) -> Int? {
        let name = key.stringValue
        if let index { return index[name] }
        return dict.keys.firstIndex(of: name)
    }

    func contains(_ key: Key) -> Bool {
        if let index { return index[key.stringValue] != nil }
        return dict.keys.contains(key.stringValue)
    }

    private func value(_ key: Key) throws -> PlistValue {
        guard let i = position(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: path.path, debugDescription: "No value associated with key \(key.stringValue.debugDescription)."))
        }
        return dict.values[i]
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNullMarker }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.bool(value(key), path.appending(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.string(value(key), path.appending(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.double(value(key), path.appending(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.float(value(key), path.appending(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.integer(value(key), path.appending(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.integer(value(key), path.appending(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.integer(value(key), path.appending(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.integer(value(key), path.appending(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.integer(value(key), path.appending(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.integer(value(key), path.appending(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.integer(value(key), path.appending(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.integer(value(key), path.appending(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.integer(value(key), path.appending(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.integer(value(key), path.appending(key)) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unwrap(value(key), as: type, path: path.appending(key))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let i = position(key) else { return nil }
        let v = dict.values[i]
        if v.isNullMarker { return nil }
        return try decoder.unwrap(v, as: type, path: path.appending(key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let v = try value(key)
        guard case .dictionary(let d) = v else { throw decoder.mismatch([String: Any].self, v, path.appending(key)) }
        return KeyedDecodingContainer(PlistKeyedDecodingContainer<NestedKey>(decoder: decoder, dict: d, path: path.appending(key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let v = try value(key)
        guard case .array(let a) = v else { throw decoder.mismatch([Any].self, v, path.appending(key)) }
        return PlistUnkeyedDecodingContainer(decoder: decoder, items: a, path: path.appending(key))
    }

    func superDecoder() throws -> any Decoder { try superDecoder(named: PlistCodingKey.super) }

    func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder(named: key) }

    private func superDecoder(named key: any CodingKey) throws -> any Decoder {
        let found = (index.map { $0[key.stringValue] } ?? dict.keys.firstIndex(of: key.stringValue)).map { dict.values[$0] }
        return PlistDecoderImpl(value: found ?? .dictionary(PlistDictionary()), path: path.appending(key), userInfo: decoder.userInfo)
    }
}
