import Foundation

struct PlistUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: PlistDecoderImpl
    let items: [PlistValue]
    let path: CodingPathNode
    private(set) var currentIndex = 0

    init(decoder: PlistDecoderImpl, items: [PlistValue], path: CodingPathNode) {
        self.decoder = decoder
        self.items = items
        self.path = path
    }

    var codingPath: [any CodingKey] { path.path }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private var itemPath: CodingPathNode { path.appending(PlistCodingKey(index: currentIndex)) }

    private mutating func next(_ type: Any.Type) throws -> PlistValue {
        guard currentIndex < items.count else {
            throw DecodingError.valueNotFound(type, .init(codingPath: itemPath.path, debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return items[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < items.count else {
            throw DecodingError.valueNotFound(Any?.self, .init(codingPath: itemPath.path, debugDescription: "Unkeyed container is at end."))
        }
        if items[currentIndex].isNullMarker { currentIndex += 1; return true }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { let p = itemPath; return try decoder.bool(next(type), p) }
    mutating func decode(_ type: String.Type) throws -> String { let p = itemPath; return try decoder.string(next(type), p) }
    mutating func decode(_ type: Double.Type) throws -> Double { let p = itemPath; return try decoder.double(next(type), p) }
    mutating func decode(_ type: Float.Type) throws -> Float { let p = itemPath; return try decoder.float(next(type), p) }
    mutating func decode(_ type: Int.Type) throws -> Int { let p = itemPath; return try decoder.integer(next(type), p) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { let p = itemPath; return try decoder.integer(next(type), p) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { let p = itemPath; return try decoder.integer(next(type), p) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { let p = itemPath; return try decoder.integer(next(type), p) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let p = itemPath; return try decoder.integer(next(type), p) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { let p = itemPath; return try decoder.integer(next(type), p) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let p = itemPath; return try decoder.integer(next(type), p) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let p = itemPath; return try decoder.integer(next(type), p) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let p = itemPath; return try decoder.integer(next(type), p) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let p = itemPath; return try decoder.integer(next(type), p) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let p = itemPath
        return try decoder.unwrap(next(type), as: type, path: p)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let p = itemPath
        let v = try next([String: Any].self)
        guard case .dictionary(let d) = v else { throw decoder.mismatch([String: Any].self, v, p) }
        return KeyedDecodingContainer(PlistKeyedDecodingContainer<NestedKey>(decoder: decoder, dict: d, path: p))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let p = itemPath
        let v = try next([Any].self)
        guard case .array(let a) = v else { throw decoder.mismatch([Any].self, v, p) }
        return PlistUnkeyedDecodingContainer(decoder: decoder, items: a, path: p)
    }

    mutating func superDecoder() throws -> any Decoder {
        let p = itemPath
        return PlistDecoderImpl(value: try next(Any.self), path: p, userInfo: decoder.userInfo)
    }
}
