import Foundation

struct PlistUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: PlistEncoderImpl
    let node: Int32
    let path: CodingPathNode

    var codingPath: [any CodingKey] { path.path }
    var count: Int { Int(encoder.arena.nodes[Int(node)].count) }

    private var arena: EncodingArena { encoder.arena }

    @inline(__always) private func add(_ value: Int32) { arena.append(to: node, key: -1, value: value) }

    mutating func encodeNil() throws { add(arena.add(.null)) }
    mutating func encode(_ value: Bool) throws { add(arena.add(.bool, bits: value ? 1 : 0)) }
    mutating func encode(_ value: String) throws { add(arena.addString(value)) }
    mutating func encode(_ value: Double) throws { add(arena.add(.double, bits: value.bitPattern)) }
    mutating func encode(_ value: Float) throws { add(arena.add(.float, bits: UInt64(value.bitPattern))) }
    mutating func encode(_ value: Int) throws { add(encoder.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { add(encoder.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { add(encoder.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { add(encoder.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { add(encoder.int(value)) }
    mutating func encode(_ value: UInt) throws { add(encoder.wide(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { add(encoder.int(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { add(encoder.int(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { add(encoder.int(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { add(encoder.wide(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        add(try encoder.node(for: value, under: path, key: PlistCodingKey(index: count)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nestedPath = path.appending(PlistCodingKey(index: count))
        let nested = arena.add(.dictionary)
        add(nested)
        return KeyedEncodingContainer(PlistKeyedEncodingContainer<NestedKey>(encoder: encoder, node: nested, path: nestedPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nestedPath = path.appending(PlistCodingKey(index: count))
        let nested = arena.add(.array)
        add(nested)
        return PlistUnkeyedEncodingContainer(encoder: encoder, node: nested, path: nestedPath)
    }

    mutating func superEncoder() -> any Encoder {
        let index = count
        return PlistSuperEncoder(parent: encoder, target: .array(node, index), path: path.appending(PlistCodingKey(index: index)))
    }
}
