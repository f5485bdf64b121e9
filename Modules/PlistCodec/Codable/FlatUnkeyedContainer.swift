import Foundation

/// An unkeyed container over a stored array.
struct FlatUnkeyedContainer<Store: PlistDecodingStore>: UnkeyedDecodingContainer {
    let decoder: FlatDecoder<Store>
    let items: FlatContainer
    let path: CodingPathNode
    private(set) var currentIndex = 0

    init(decoder: FlatDecoder<Store>, items: FlatContainer, path: CodingPathNode) {
        self.decoder = decoder
        self.items = items
        self.path = path
    }

    var codingPath: [any CodingKey] { path.path }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private var itemPath: CodingPathNode { path.appending(PlistCodingKey(index: currentIndex)) }

    /// The next element's node; the caller builds its path (for errors) before calling.
    private mutating func next(_ type: Any.Type) throws -> Int {
        guard currentIndex < items.count else {
            throw DecodingError.valueNotFound(type, .init(codingPath: itemPath.path, debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return decoder.store.element(items, currentIndex)
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < items.count else {
            throw DecodingError.valueNotFound(Any?.self, .init(codingPath: itemPath.path, debugDescription: "Unkeyed container is at end."))
        }
        let v = decoder.store.element(items, currentIndex)
        if decoder.store.kind(v) == .string, decoder.store.isNullMarker(v) { currentIndex += 1; return true }
        return false
    }

    private func pathAt(_ index: Int) -> CodingPathNode { path.appending(PlistCodingKey(index: index)) }

    mutating func decode(_ type: Bool.Type) throws -> Bool { let i = currentIndex; return try decoder.bool(next(type), pathAt(i)) }
    mutating func decode(_ type: String.Type) throws -> String { let i = currentIndex; return try decoder.string(next(type), pathAt(i)) }
    mutating func decode(_ type: Double.Type) throws -> Double { let i = currentIndex; return try decoder.double(next(type), pathAt(i)) }
    mutating func decode(_ type: Float.Type) throws -> Float { let i = currentIndex; return try decoder.float(next(type), pathAt(i)) }
    mutating func decode(_ type: Int.Type) throws -> Int { let i = currentIndex; return try decoder.integer(next(type), pathAt(i)) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { let i = currentIndex; return try decoder.integer(next(type), pathAt(i)) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { let i = currentIndex; return try decoder.integer(next(type), pathAt(i)) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { let i = currentIndex; return try decoder.integer(next(type), pathAt(i)) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { let i = currentIndex; return try decoder.integer(next(type), pathAt(i)) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { let i = currentIndex; return try decoder.integer(next(type), pathAt(i)) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { let i = currentIndex; return try decoder.integer(next(type), pathAt(i)) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { let i = currentIndex; return try decoder.integer(next(type), pathAt(i)) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { let i = currentIndex; return try decoder.integer(next(type), pathAt(i)) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { let i = currentIndex; return try decoder.integer(next(type), pathAt(i)) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let i = currentIndex
        return try decoder.unwrap(next(type), as: type, path: pathAt(i))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let p = itemPath
        let v = try next([String: Any].self)
        guard decoder.store.kind(v) == .dictionary else { throw decoder.mismatch([String: Any].self, v, p) }
        return KeyedDecodingContainer(FlatKeyedContainer<NestedKey, Store>(decoder: decoder, node: v, path: p))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let p = itemPath
        let v = try next([Any].self)
        guard decoder.store.kind(v) == .array else { throw decoder.mismatch([Any].self, v, p) }
        return FlatUnkeyedContainer(decoder: decoder, items: decoder.store.container(v), path: p)
    }

    mutating func superDecoder() throws -> any Decoder {
        let p = itemPath
        return decoder.child(try next(Any.self), path: p)
    }
}
