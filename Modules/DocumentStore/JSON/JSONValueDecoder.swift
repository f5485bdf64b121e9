import Foundation

/// A `Decoder` over a ``JSON`` value, reading what Foundation's `JSONEncoder` writes with its default
/// strategies: `Date` as seconds since 2001, `Data` as Base64 text, `URL` as its string, `Decimal` as
/// a number. `CodablePersistable` loads through it.
struct JSONValueDecoder: Decoder {
    let value: JSON
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: JSON, codingPath: [any CodingKey] = []) {
        self.value = value
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let fields) = value else { throw Self.mismatch([String: JSON].self, value, codingPath) }
        return KeyedDecodingContainer(Keyed(fields: fields, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw Self.mismatch([JSON].self, value, codingPath) }
        return Unkeyed(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(value: value, codingPath: codingPath) }

    /// Decodes `type` from `value`, with the special cases of `JSONEncoder`'s default strategies.
    static func decode<T: Decodable>(_ type: T.Type, from value: JSON, codingPath: [any CodingKey]) throws -> T {
        if T.self == Data.self {
            guard case .string(let text) = value, let data = Data(base64Encoded: text) else { throw mismatch(Data.self, value, codingPath) }
            return data as! T
        }
        if T.self == URL.self {
            guard case .string(let text) = value, let url = URL(string: text) else { throw mismatch(URL.self, value, codingPath) }
            return url as! T
        }
        if T.self == Decimal.self {
            switch value {
            case .integer(let v): return Decimal(v) as! T
            case .double(let v): return Decimal(v) as! T
            default: throw mismatch(Decimal.self, value, codingPath)
            }
        }
        return try T(from: JSONValueDecoder(value, codingPath: codingPath))
    }

    /// A primitive (`Bool`, `String`, a number) directly, anything else through its `init(from:)`.
    static func decodeAny<T: Decodable>(_ type: T.Type, from value: JSON, codingPath: [any CodingKey]) throws -> T {
        switch type {
        case is Bool.Type, is String.Type, is Double.Type, is Float.Type, is Int.Type, is Int8.Type, is Int16.Type,
             is Int32.Type, is Int64.Type, is UInt.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type, is UInt64.Type:
            return try primitive(type, value, codingPath)
        default:
            return try decode(type, from: value, codingPath: codingPath)
        }
    }

    static func primitive<T>(_ type: T.Type, _ value: JSON, _ codingPath: [any CodingKey]) throws -> T {
        let result: Any?
        switch type {
        case is Bool.Type: result = Bool(json: value)
        case is String.Type: result = String(json: value)
        case is Double.Type: result = Double(json: value)
        case is Float.Type: result = Float(json: value)
        case is Int.Type: result = Int(json: value)
        case is Int8.Type: result = Int8(json: value)
        case is Int16.Type: result = Int16(json: value)
        case is Int32.Type: result = Int32(json: value)
        case is Int64.Type: result = Int64(json: value)
        case is UInt.Type: result = UInt(json: value)
        case is UInt8.Type: result = UInt8(json: value)
        case is UInt16.Type: result = UInt16(json: value)
        case is UInt32.Type: result = UInt32(json: value)
        case is UInt64.Type: result = UInt64(json: value)
        default: result = nil
        }
        guard let typed = result as? T else { throw mismatch(type, value, codingPath) }
        return typed
    }

    static func mismatch(_ type: Any.Type, _ value: JSON, _ codingPath: [any CodingKey]) -> DecodingError {
        if value == .null {
            return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "found null"))
        }
        return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "found \(value)"))
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let fields: [String: JSON]
        let codingPath: [any CodingKey]
        var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

        private func value(_ key: Key) throws -> JSON {
            guard let value = fields[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for \(key.stringValue)"))
            }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try primitive(type, value(key), codingPath + [key]) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try primitive(type, value(key), codingPath + [key]) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try primitive(type, value(key), codingPath + [key]) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try primitive(type, value(key), codingPath + [key]) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try primitive(type, value(key), codingPath + [key]) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try primitive(type, value(key), codingPath + [key]) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try primitive(type, value(key), codingPath + [key]) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try primitive(type, value(key), codingPath + [key]) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try primitive(type, value(key), codingPath + [key]) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try primitive(type, value(key), codingPath + [key]) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try primitive(type, value(key), codingPath + [key]) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try primitive(type, value(key), codingPath + [key]) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try primitive(type, value(key), codingPath + [key]) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try primitive(type, value(key), codingPath + [key]) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try JSONValueDecoder.decode(type, from: value(key), codingPath: codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try JSONValueDecoder(value(key), codingPath: codingPath + [key]).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try JSONValueDecoder(value(key), codingPath: codingPath + [key]).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            JSONValueDecoder(fields["super"] ?? .null, codingPath: codingPath)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            JSONValueDecoder(fields[key.stringValue] ?? .null, codingPath: codingPath + [key])
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let items: [JSON]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        struct Index: CodingKey {
            let intValue: Int?
            var stringValue: String { "\(intValue ?? 0)" }
            init(_ index: Int) { intValue = index }
            init?(stringValue: String) { return nil }
            init?(intValue: Int) { self.intValue = intValue }
        }

        private mutating func next<T>(_ type: T.Type) throws -> (JSON, [any CodingKey]) {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "the array has no more elements"))
            }
            defer { currentIndex += 1 }
            return (items[currentIndex], codingPath + [Index(currentIndex)])
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, items[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, path) = try next(type)
            return try JSONValueDecoder.decodeAny(type, from: value, codingPath: path)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let (value, path) = try next([String: JSON].self)
            return try JSONValueDecoder(value, codingPath: path).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let (value, path) = try next([JSON].self)
            return try JSONValueDecoder(value, codingPath: path).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let (value, path) = try next(JSON.self)
            return JSONValueDecoder(value, codingPath: path)
        }
    }

    struct Single: SingleValueDecodingContainer {
        let value: JSON
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { value == .null }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try JSONValueDecoder.decodeAny(type, from: value, codingPath: codingPath)
        }
    }
}
