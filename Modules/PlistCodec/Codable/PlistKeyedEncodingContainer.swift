import Foundation

struct PlistKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: PlistEncoderImpl
    let node: Int32
    let path: CodingPathNode

    var codingPath: [any CodingKey] { path.path }

    /// Adds an entry; a key encoded twice is resolved when the dictionary is written (first
    /// position, last value), as `PropertyListEncoder` replaces the value.
    @inline(__always) private func set(_ value: Int32, _ key: Key) {
        let arena = encoder.arena
        arena.append(to: node, key: arena.internKey(key.stringValue), value: value)
    }

    private var arena: EncodingArena { encoder.arena }

    mutating func encodeNil(forKey key: Key) throws { set(arena.add(.null), key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(arena.add(.bool, bits: value ? 1 : 0), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(arena.addString(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(arena.add(.double, bits: value.bitPattern), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(arena.add(.float, bits: UInt64(value.bitPattern)), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(encoder.int(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(encoder.int(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(encoder.int(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(encoder.int(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(encoder.int(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(encoder.wide(UInt64(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(encoder.int(Int64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(encoder.int(Int64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(encoder.int(Int64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(encoder.wide(value), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(try encoder.node(for: value, under: path, key: key), key)
    }

    /// The container already at `key` if it is of `kind`, else a new one set there.
    private func nested(_ kind: EncodingArena.Kind, _ key: Key) -> Int32 {
        if let existing = arena.value(for: key.stringValue, in: node), arena.nodes[Int(existing)].kind == kind {
            return existing
        }
        let nested = arena.add(kind)
        set(nested, key)
        return nested
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(PlistKeyedEncodingContainer<NestedKey>(encoder: encoder, node: nested(.dictionary, key), path: path.appending(key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        PlistUnkeyedEncodingContainer(encoder: encoder, node: nested(.array, key), path: path.appending(key))
    }

    mutating func superEncoder() -> any Encoder {
        PlistSuperEncoder(parent: encoder, target: .dictionary(node, "super"), path: path.appending(PlistCodingKey.super))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        PlistSuperEncoder(parent: encoder, target: .dictionary(node, key.stringValue), path: path.appending(key))
    }
}
