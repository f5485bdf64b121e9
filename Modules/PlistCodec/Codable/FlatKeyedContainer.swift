import Foundation

/// A keyed container over a stored dictionary. Keys match as `PlistDecoderImpl`'s do: by Swift
/// string equality, the first matching key in file order, and for a key the file repeats exactly,
/// the last of its values.
struct FlatKeyedContainer<Key: CodingKey, Store: PlistDecodingStore>: KeyedDecodingContainerProtocol {
    let decoder: FlatDecoder<Store>
    let entries: FlatContainer
    /// Every key ASCII and different from the others: a name then matches one key, by its bytes.
    let simple: Bool
    let path: CodingPathNode
    /// For large dictionaries, an index built on the first lookup that misses the hint.
    private let large: FlatKeyIndex?

    init(decoder: FlatDecoder<Store>, node: Int, path: CodingPathNode) {
        self.decoder = decoder
        self.path = path
        entries = decoder.store.container(node)
        simple = decoder.store.keysAreSimple(node, entries)
        large = entries.count > 16 ? FlatKeyIndex() : nil
    }

    var codingPath: [any CodingKey] { path.path }

    @inline(__always) private func keyNode(_ i: Int) -> Int { decoder.store.element(entries, i) }
    @inline(__always) private func valueNode(_ i: Int) -> Int { decoder.store.element(entries, entries.count + i) }

    var allKeys: [Key] {
        let store = decoder.store
        if simple { return (0..<entries.count).compactMap { Key(stringValue: store.string(keyNode($0))) } }
        // A key the file repeats exactly is one key, at its first position.
        var seen = Set<ExactKey>()
        return (0..<entries.count).compactMap { i in
            let name = store.string(keyNode(i))
            return seen.insert(ExactKey(string: name)).inserted ? Key(stringValue: name) : nil
        }
    }

    /// The position of the entry whose value `name` reads, or nil.
    func position(_ name: String) -> Int? {
        let n = entries.count
        guard n > 0 else { return nil }
        if simple {
            var bytesOfName = name
            let found: Int?? = bytesOfName.withUTF8 { bytes in
                for b in bytes where b >= 0x80 { return .none }
                let store = decoder.store
                let hint = decoder.keyHint < n ? decoder.keyHint : 0
                if store.asciiKey(keyNode(hint), equals: name, bytes: bytes) {
                    decoder.keyHint = hint + 1
                    return .some(hint)
                }
                if let large { return .some(large.position(of: name, in: self)) }
                for i in 0..<n where i != hint && store.asciiKey(keyNode(i), equals: name, bytes: bytes) {
                    decoder.keyHint = i + 1
                    return .some(i)
                }
                return .some(nil)
            }
            if let found { return found }
        }
        if let large { return large.position(of: name, in: self) }
        let store = decoder.store
        guard let first = (0..<n).first(where: { store.string(keyNode($0)) == name }) else { return nil }
        return lastExactRepeat(of: first)
    }

    /// The last entry whose key has exactly the scalars of entry `first`'s (a file may repeat a key;
    /// its last value wins, as in the tree reader).
    func lastExactRepeat(of first: Int) -> Int {
        if simple { return first }
        var last = first
        for j in (first + 1)..<max(first + 1, entries.count) where decoder.store.sameString(keyNode(j), keyNode(first)) {
            last = j
        }
        return last
    }

    /// Every key as a string, for `FlatKeyIndex`.
    func keyStrings() -> [String] { (0..<entries.count).map { decoder.store.string(keyNode($0)) } }

    private func value(_ key: Key) throws -> Int {
        guard let i = position(key.stringValue) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: path.path, debugDescription: "No value associated with key \(key.stringValue.debugDescription)."))
        }
        return valueNode(i)
    }

    /// The value for `key` unless it is missing or `$null`.
    @inline(__always) private func present(_ key: Key) -> Int? {
        guard let i = position(key.stringValue) else { return nil }
        let v = valueNode(i)
        return decoder.store.kind(v) == .string && decoder.store.isNullMarker(v) ? nil : v
    }

    func contains(_ key: Key) -> Bool { position(key.stringValue) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        let v = try value(key)
        return decoder.store.kind(v) == .string && decoder.store.isNullMarker(v)
    }

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

    // Each `decodeIfPresent` finds its key once; the protocol's defaults look it up three times.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(key).map { try decoder.bool($0, path.appending(key)) } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(key).map { try decoder.string($0, path.appending(key)) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try present(key).map { try decoder.double($0, path.appending(key)) } }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try present(key).map { try decoder.float($0, path.appending(key)) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(key).map { try decoder.integer($0, path.appending(key)) } }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try present(key).map { try decoder.integer($0, path.appending(key)) } }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try present(key).map { try decoder.integer($0, path.appending(key)) } }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try present(key).map { try decoder.integer($0, path.appending(key)) } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try present(key).map { try decoder.integer($0, path.appending(key)) } }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try present(key).map { try decoder.integer($0, path.appending(key)) } }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try present(key).map { try decoder.integer($0, path.appending(key)) } }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try present(key).map { try decoder.integer($0, path.appending(key)) } }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try present(key).map { try decoder.integer($0, path.appending(key)) } }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try present(key).map { try decoder.integer($0, path.appending(key)) } }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key).map { try decoder.unwrap($0, as: type, path: path.appending(key)) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let v = try value(key)
        guard decoder.store.kind(v) == .dictionary else { throw decoder.mismatch([String: Any].self, v, path.appending(key)) }
        return KeyedDecodingContainer(FlatKeyedContainer<NestedKey, Store>(decoder: decoder, node: v, path: path.appending(key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let v = try value(key)
        guard decoder.store.kind(v) == .array else { throw decoder.mismatch([Any].self, v, path.appending(key)) }
        return FlatUnkeyedContainer(decoder: decoder, items: decoder.store.container(v), path: path.appending(key))
    }

    func superDecoder() throws -> any Decoder { superDecoder(named: PlistCodingKey.super) }

    func superDecoder(forKey key: Key) throws -> any Decoder { superDecoder(named: key) }

    private func superDecoder(named key: any CodingKey) -> any Decoder {
        guard let i = position(key.stringValue) else {
            // A missing key reads as an empty dictionary, as in `PropertyListDecoder`.
            return PlistDecoderImpl(value: .dictionary(PlistDictionary()), path: path.appending(key), userInfo: decoder.userInfo)
        }
        return decoder.child(valueNode(i), path: path.appending(key))
    }
}

/// A large dictionary's keys by name, built once: the first position of each name (by Swift string
/// equality) and, for a key repeated exactly, the position of its last value.
final class FlatKeyIndex {
    @exclusivity(unchecked) private var first: [String: Int]?
    @exclusivity(unchecked) private var lastRepeat: [Int] = []

    func position<Key, Store>(of name: String, in container: FlatKeyedContainer<Key, Store>) -> Int? {
        if first == nil { build(container.keyStrings()) }
        guard let f = first?[name] else { return nil }
        return lastRepeat[f]
    }

    private func build(_ keys: [String]) {
        var first = [String: Int](minimumCapacity: keys.count)
        var exact = [ExactKey: Int](minimumCapacity: keys.count)
        lastRepeat = Array(keys.indices)
        for (i, key) in keys.enumerated() {
            if let f = exact[ExactKey(string: key)] { lastRepeat[f] = i } else { exact[ExactKey(string: key)] = i }
            if first[key] == nil { first[key] = i }
        }
        self.first = first
    }
}
