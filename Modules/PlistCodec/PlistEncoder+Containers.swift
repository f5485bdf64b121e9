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

/// The encoder `superEncoder()` returns: it encodes into a subtree of its own and, when released,
/// puts that subtree into the parent container (as `PropertyListEncoder` does, with its own sharing
/// table).
final class PlistSuperEncoder: Encoder {
    enum Target {
        case array(Int32, Int)
        case dictionary(Int32, String)
    }

    private let inner: PlistEncoderImpl
    private let target: Target

    init(parent: PlistEncoderImpl, target: Target, path: CodingPathNode) {
        inner = PlistEncoderImpl(userInfo: parent.userInfo, arena: parent.arena, path: path)
        self.target = target
    }

    deinit {
        let arena = inner.arena
        let node = arena.addIsolated(inner.slot >= 0 ? inner.slot : arena.add(.dictionary))
        switch target {
        case .array(let container, let index): arena.insert(into: container, at: index, value: node)
        case .dictionary(let container, let key): arena.append(to: container, key: arena.internString(key), value: node)
        }
    }

    var codingPath: [any CodingKey] { inner.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { inner.userInfo }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { inner.container(keyedBy: type) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { inner.unkeyedContainer() }
    func singleValueContainer() -> any SingleValueEncodingContainer { inner.singleValueContainer() }
}
