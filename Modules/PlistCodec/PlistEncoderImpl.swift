import Foundation

/// The `Encoder` behind `PlistEncoder`. One instance serves a whole encode: descending into a value
/// saves and restores `path` and `slot` instead of allocating a new encoder.
final class PlistEncoderImpl: Encoder {
    let userInfo: [CodingUserInfoKey: Any]
    var path: CodingPathNode
    /// The value or container the current value has produced so far.
    var slot: PlistNode?

    init(userInfo: [CodingUserInfoKey: Any], path: CodingPathNode = .root) {
        self.userInfo = userInfo
        self.path = path
    }

    var codingPath: [any CodingKey] { path.path }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: NodeDictionary
        if case .dictionary(let existing) = slot {
            box = existing
        } else {
            box = NodeDictionary()
            slot = .dictionary(box)
        }
        return KeyedEncodingContainer(PlistKeyedEncodingContainer<Key>(encoder: self, box: box, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: NodeArray
        if case .array(let existing) = slot {
            box = existing
        } else {
            box = NodeArray()
            slot = .array(box)
        }
        return PlistUnkeyedEncodingContainer(encoder: self, box: box, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    /// Encodes `value` at `path` and returns what it produced (`nil` if it encoded nothing).
    func wrap<T: Encodable>(_ value: T, path newPath: CodingPathNode) throws -> PlistNode? {
        if T.self == Date.self, let date = value as? Date { return .date(date.timeIntervalSinceReferenceDate) }
        if T.self == Data.self, let data = value as? Data { return .data(data) }
        if let dictionary = value as? any EncodableDictionaryMarker {
            return try dictionary.encodeSorted(into: self, path: newPath)
        }
        let savedPath = path, savedSlot = slot
        path = newPath
        slot = nil
        defer { path = savedPath; slot = savedSlot }
        try value.encode(to: self)
        return slot
    }

    /// Encodes a nested value; a value that encodes nothing becomes an empty dictionary, as in Foundation.
    @inline(__always)
    func node<T: Encodable>(for value: T, at path: CodingPathNode) throws -> PlistNode {
        try wrap(value, path: path) ?? .dictionary(NodeDictionary())
    }

    @inline(__always) static func node(_ v: Int) -> PlistNode { .int(Int64(v)) }
    @inline(__always) static func node(_ v: UInt) -> PlistNode { .wideInt(Int128(v)) }
    @inline(__always) static func node(_ v: UInt64) -> PlistNode { .wideInt(Int128(v)) }
}

extension PlistEncoderImpl: SingleValueEncodingContainer {
    func encodeNil() throws { slot = .null }
    func encode(_ value: Bool) throws { slot = .bool(value) }
    func encode(_ value: String) throws { slot = .string(value) }
    func encode(_ value: Double) throws { slot = .double(value) }
    func encode(_ value: Float) throws { slot = .float(value) }
    func encode(_ value: Int) throws { slot = .int(Int64(value)) }
    func encode(_ value: Int8) throws { slot = .int(Int64(value)) }
    func encode(_ value: Int16) throws { slot = .int(Int64(value)) }
    func encode(_ value: Int32) throws { slot = .int(Int64(value)) }
    func encode(_ value: Int64) throws { slot = .int(value) }
    func encode(_ value: UInt) throws { slot = .wideInt(Int128(value)) }
    func encode(_ value: UInt8) throws { slot = .int(Int64(value)) }
    func encode(_ value: UInt16) throws { slot = .int(Int64(value)) }
    func encode(_ value: UInt32) throws { slot = .int(Int64(value)) }
    func encode(_ value: UInt64) throws { slot = .wideInt(Int128(value)) }
    func encode<T: Encodable>(_ value: T) throws { slot = try node(for: value, at: path) }
}

struct PlistKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: PlistEncoderImpl
    let box: NodeDictionary
    let path: CodingPathNode

    var codingPath: [any CodingKey] { path.path }

    @inline(__always) private func set(_ node: PlistNode, _ key: Key) { box.set(node, for: key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(.float(value), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(.int(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(.wideInt(Int128(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.int(Int64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(.wideInt(Int128(value)), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(try encoder.node(for: value, at: path.appending(key)), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested: NodeDictionary
        if case .dictionary(let existing)? = box[key.stringValue] {
            nested = existing
        } else {
            nested = NodeDictionary()
            set(.dictionary(nested), key)
        }
        return KeyedEncodingContainer(PlistKeyedEncodingContainer<NestedKey>(encoder: encoder, box: nested, path: path.appending(key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested: NodeArray
        if case .array(let existing)? = box[key.stringValue] {
            nested = existing
        } else {
            nested = NodeArray()
            set(.array(nested), key)
        }
        return PlistUnkeyedEncodingContainer(encoder: encoder, box: nested, path: path.appending(key))
    }

    mutating func superEncoder() -> any Encoder {
        PlistSuperEncoder(parent: encoder, target: .dictionary(box, "super"), path: path.appending(PlistCodingKey.super))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        PlistSuperEncoder(parent: encoder, target: .dictionary(box, key.stringValue), path: path.appending(key))
    }
}

struct PlistUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: PlistEncoderImpl
    let box: NodeArray
    let path: CodingPathNode

    var codingPath: [any CodingKey] { path.path }
    var count: Int { box.items.count }

    @inline(__always) private func add(_ node: PlistNode) { box.items.append(node) }

    mutating func encodeNil() throws { add(.null) }
    mutating func encode(_ value: Bool) throws { add(.bool(value)) }
    mutating func encode(_ value: String) throws { add(.string(value)) }
    mutating func encode(_ value: Double) throws { add(.double(value)) }
    mutating func encode(_ value: Float) throws { add(.float(value)) }
    mutating func encode(_ value: Int) throws { add(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { add(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { add(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { add(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { add(.int(value)) }
    mutating func encode(_ value: UInt) throws { add(.wideInt(Int128(value))) }
    mutating func encode(_ value: UInt8) throws { add(.int(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { add(.int(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { add(.int(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { add(.wideInt(Int128(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        add(try encoder.node(for: value, at: path.appending(PlistCodingKey(index: box.items.count))))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = NodeDictionary()
        let nestedPath = path.appending(PlistCodingKey(index: box.items.count))
        add(.dictionary(nested))
        return KeyedEncodingContainer(PlistKeyedEncodingContainer<NestedKey>(encoder: encoder, box: nested, path: nestedPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = NodeArray()
        let nestedPath = path.appending(PlistCodingKey(index: box.items.count))
        add(.array(nested))
        return PlistUnkeyedEncodingContainer(encoder: encoder, box: nested, path: nestedPath)
    }

    mutating func superEncoder() -> any Encoder {
        let index = box.items.count
        return PlistSuperEncoder(parent: encoder, target: .array(box, index), path: path.appending(PlistCodingKey(index: index)))
    }
}

/// The encoder `superEncoder()` returns: it encodes into a tree of its own and, when released, puts
/// that tree into the parent container (as `PropertyListEncoder` does, with its own sharing table).
final class PlistSuperEncoder: Encoder {
    enum Target {
        case array(NodeArray, Int)
        case dictionary(NodeDictionary, String)
    }

    private let inner: PlistEncoderImpl
    private let target: Target

    init(parent: PlistEncoderImpl, target: Target, path: CodingPathNode) {
        inner = PlistEncoderImpl(userInfo: parent.userInfo, path: path)
        self.target = target
    }

    deinit {
        let node = PlistNode.isolated(inner.slot ?? .dictionary(NodeDictionary()))
        switch target {
        case .array(let box, let index): box.items.insert(node, at: min(index, box.items.count))
        case .dictionary(let box, let key): box.set(node, for: key)
        }
    }

    var codingPath: [any CodingKey] { inner.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { inner.userInfo }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { inner.container(keyedBy: type) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { inner.unkeyedContainer() }
    func singleValueContainer() -> any SingleValueEncodingContainer { inner.singleValueContainer() }
}
