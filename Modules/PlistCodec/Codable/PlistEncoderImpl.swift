import Foundation

/// The `Encoder` behind `PlistEncoder`. One instance serves a whole encode, writing every node into
/// one `EncodingArena`: descending into a value saves and restores `path` and `slot` instead of
/// allocating a new encoder.
final class PlistEncoderImpl: Encoder {
    let userInfo: [CodingUserInfoKey: Any]
    let arena: EncodingArena
    // Hot and only touched by the encoding thread: skip dynamic exclusivity checks.
    @exclusivity(unchecked) var path: CodingPathNode
    /// The node the current value has produced so far (-1: nothing yet).
    @exclusivity(unchecked) var slot: Int32 = -1

    init(userInfo: [CodingUserInfoKey: Any], arena: EncodingArena, path: CodingPathNode = .root) {
        self.userInfo = userInfo
        self.arena = arena
        self.path = path
    }

    var codingPath: [any CodingKey] { path.path }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if slot < 0 || arena.nodes[Int(slot)].kind != .dictionary { slot = arena.add(.dictionary) }
        return KeyedEncodingContainer(PlistKeyedEncodingContainer<Key>(encoder: self, node: slot, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if slot < 0 || arena.nodes[Int(slot)].kind != .array { slot = arena.add(.array) }
        return PlistUnkeyedEncodingContainer(encoder: self, node: slot, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    /// Encodes `value` at `path` and returns its node (-1 if it encoded nothing).
    func wrap<T: Encodable>(_ value: T, path newPath: CodingPathNode) throws -> Int32 {
        if let special = special(value) { return special }
        if isDictionary(T.self), let dictionary = value as? any EncodableDictionaryMarker {
            return try dictionary.encodeSorted(into: self, path: newPath)
        }
        let savedPath = path, savedSlot = slot
        path = newPath
        slot = -1
        defer { path = savedPath; slot = savedSlot }
        try value.encode(to: self)
        return slot
    }

    /// Encodes a nested value; a value that encodes nothing becomes an empty dictionary, as in Foundation.
    @inline(__always)
    func node<T: Encodable>(for value: T, at path: CodingPathNode) throws -> Int32 {
        let node = try wrap(value, path: path)
        return node >= 0 ? node : arena.add(.dictionary)
    }

    /// `Date` and `Data` become their own property-list kinds instead of encoding themselves; the
    /// common scalars (and arrays of them) are stored without a trip through `encode(to:)`, with
    /// the nodes `encode(to:)` would have made.
    @inline(__always)
    func special<T: Encodable>(_ value: T) -> Int32? {
        // The type checks make the reinterpretations exact; they avoid a dynamic cast per value.
        if T.self == String.self { return arena.addString(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return arena.add(.int, bits: UInt64(bitPattern: Int64(unsafeBitCast(value, to: Int.self)))) }
        if T.self == Double.self { return arena.add(.double, bits: unsafeBitCast(value, to: Double.self).bitPattern) }
        if T.self == Bool.self { return arena.add(.bool, bits: unsafeBitCast(value, to: Bool.self) ? 1 : 0) }
        // Arrays of strings and integers are common enough to skip their containers too.
        if T.self == [String].self {
            let array = arena.add(.array)
            for s in unsafeBitCast(value, to: [String].self) { arena.append(to: array, key: -1, value: arena.addString(s)) }
            return array
        }
        if T.self == [Int].self {
            let array = arena.add(.array)
            for i in unsafeBitCast(value, to: [Int].self) { arena.append(to: array, key: -1, value: int(Int64(i))) }
            return array
        }
        if T.self == Date.self {
            let t = withUnsafeBytes(of: value) { $0.load(as: Date.self) }.timeIntervalSinceReferenceDate
            return arena.add(.date, bits: t.bitPattern)
        }
        if T.self == Data.self {
            return arena.addData(withUnsafePointer(to: value) { $0.withMemoryRebound(to: Data.self, capacity: 1) { $0.pointee } })
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
    /// (scalars, dates and data never do), saving an allocation per scalar-like value.
    @inline(__always)
    func node<T: Encodable>(for value: T, under parent: CodingPathNode, key: some CodingKey) throws -> Int32 {
        if let special = special(value) { return special }
        return try node(for: value, at: parent.appending(key))
    }

    @inline(__always) func int(_ v: Int64) -> Int32 { arena.add(.int, bits: UInt64(bitPattern: v)) }
    @inline(__always) func wide(_ v: UInt64) -> Int32 { arena.addWide(Int128(v)) }
}

extension PlistEncoderImpl: SingleValueEncodingContainer {
    func encodeNil() throws { slot = arena.add(.null) }
    func encode(_ value: Bool) throws { slot = arena.add(.bool, bits: value ? 1 : 0) }
    func encode(_ value: String) throws { slot = arena.addString(value) }
    func encode(_ value: Double) throws { slot = arena.add(.double, bits: value.bitPattern) }
    func encode(_ value: Float) throws { slot = arena.add(.float, bits: UInt64(value.bitPattern)) }
    func encode(_ value: Int) throws { slot = int(Int64(value)) }
    func encode(_ value: Int8) throws { slot = int(Int64(value)) }
    func encode(_ value: Int16) throws { slot = int(Int64(value)) }
    func encode(_ value: Int32) throws { slot = int(Int64(value)) }
    func encode(_ value: Int64) throws { slot = int(value) }
    func encode(_ value: UInt) throws { slot = wide(UInt64(value)) }
    func encode(_ value: UInt8) throws { slot = int(Int64(value)) }
    func encode(_ value: UInt16) throws { slot = int(Int64(value)) }
    func encode(_ value: UInt32) throws { slot = int(Int64(value)) }
    func encode(_ value: UInt64) throws { slot = wide(value) }
    func encode<T: Encodable>(_ value: T) throws { slot = try node(for: value, at: path) }
}
