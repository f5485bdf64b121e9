import Foundation

/// The `Encoder` behind `PlistEncoder`. One instance serves a whole encode: descending into a value
/// saves and restores `path` and `slot` instead of allocating a new encoder.
final class PlistEncoderImpl: Encoder {
    let userInfo: [CodingUserInfoKey: Any]
    // Hot and only touched by the encoding thread: skip dynamic exclusivity checks.
    @exclusivity(unchecked) var path: CodingPathNode
    /// The value or container the current value has produced so far.
    @exclusivity(unchecked) var slot: PlistNode?
    /// How many keys the last keyed containers of a few types held, to size the next one's storage.
    @exclusivity(unchecked) private var keyedSizes: [(type: ObjectIdentifier, count: Int)] = []

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
            box = NodeDictionary(capacity: sizeHint(for: Key.self))
            slot = .dictionary(box)
        }
        return KeyedEncodingContainer(PlistKeyedEncodingContainer<Key>(encoder: self, box: box, path: path))
    }

    /// The key count the last container keyed by `Key` ended with (a small most-recent table).
    private func sizeHint<Key>(for type: Key.Type) -> Int {
        let id = ObjectIdentifier(type)
        for entry in keyedSizes where entry.type == id { return entry.count }
        return 0
    }

    /// Remembers how many keys a container keyed by `Key` held.
    func recordSize<Key>(_ count: Int, for type: Key.Type) {
        let id = ObjectIdentifier(type)
        for i in keyedSizes.indices where keyedSizes[i].type == id {
            keyedSizes[i].count = max(keyedSizes[i].count, count)
            return
        }
        if keyedSizes.count >= 8 { keyedSizes.removeFirst() }
        keyedSizes.append((id, count))
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
        if let special = Self.special(value) { return special }
        if isDictionary(T.self), let dictionary = value as? any EncodableDictionaryMarker {
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

    /// `Date` and `Data` become their own property-list kinds instead of encoding themselves.
    @inline(__always)
    static func special<T: Encodable>(_ value: T) -> PlistNode? {
        // The type checks make the reinterpretations exact; they avoid a dynamic cast per value.
        if T.self == Date.self {
            return .date(withUnsafeBytes(of: value) { $0.load(as: Date.self) }.timeIntervalSinceReferenceDate)
        }
        if T.self == Data.self {
            return .data(withUnsafePointer(to: value) { $0.withMemoryRebound(to: Data.self, capacity: 1) { $0.pointee } })
        }
        return nil
    }

    /// Whether `T` is a `Dictionary` (which the encoder orders itself), remembered per type: a
    /// conformance check costs far more than this lookup.
    @exclusivity(unchecked) private var dictionaryTypes: [(type: ObjectIdentifier, isDictionary: Bool)] = []

    private func isDictionary<T>(_ type: T.Type) -> Bool {
        let id = ObjectIdentifier(type)
        for entry in dictionaryTypes where entry.type == id { return entry.isDictionary }
        let answer = type is any EncodableDictionaryMarker.Type
        if dictionaryTypes.count >= 16 { dictionaryTypes.removeFirst() }
        dictionaryTypes.append((id, answer))
        return answer
    }

    /// Like `node(for:at:)`, but builds the child's coding path only when the value needs one
    /// (dates and data never do), saving an allocation per scalar-like value.
    @inline(__always)
    func node<T: Encodable>(for value: T, under parent: CodingPathNode, key: some CodingKey) throws -> PlistNode {
        if let special = Self.special(value) { return special }
        return try node(for: value, at: parent.appending(key))
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

    @inline(__always) private func set(_ node: PlistNode, _ key: Key) {
        box.set(node, for: key.stringValue)
        if box.count > 4 { encoder.recordSize(box.count, for: Key.self) }
    }

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
        set(try encoder.node(for: value, under: path, key: key), key)
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
        add(try encoder.node(for: value, under: path, key: PlistCodingKey(index: box.items.count)))
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
