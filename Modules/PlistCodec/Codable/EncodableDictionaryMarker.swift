import Foundation

/// Lets the encoder see a `Dictionary` before it encodes itself, so its entries come out in a stable
/// order: `[String: V]` sorted by key (as `PropertyListEncoder` does), and, where Foundation follows
/// hash order and so differs run to run, other key types sorted too.
protocol EncodableDictionaryMarker {
    func encodeSorted(into encoder: PlistEncoderImpl, path: CodingPathNode) throws -> Int32
}

extension Dictionary: EncodableDictionaryMarker where Key: Encodable, Value: Encodable {
    func encodeSorted(into encoder: PlistEncoderImpl, path: CodingPathNode) throws -> Int32 {
        if Key.self == String.self {
            return try keyed(sortedKeys: keys.map { ($0 as! String, $0) }.sorted { $0.0 < $1.0 }, encoder, path)
        }
        if Key.self == Int.self {
            let sorted = keys.sorted { ($0 as! Int) < ($1 as! Int) }
            return try keyed(sortedKeys: sorted.map { (String($0 as! Int), $0) }, encoder, path)
        }
        if Key.self is any CodingKeyRepresentable.Type {
            let named = keys.map { (($0 as! any CodingKeyRepresentable).codingKey.stringValue, $0) }
            return try keyed(sortedKeys: named.sorted { $0.0 < $1.0 }, encoder, path)
        }
        // Other keys: Swift writes alternating key, value in an array; order the pairs by the keys'
        // encoded bytes so the output does not depend on hash order.
        let arena = encoder.arena
        var pairs: [(sortKey: [UInt8], key: Int32, value: Int32)] = []
        pairs.reserveCapacity(count)
        for (i, (key, value)) in self.enumerated() {
            let keyNode = try encoder.node(for: key, at: path.appending(PlistCodingKey(index: 2 * i)))
            let valueNode = try encoder.node(for: value, at: path.appending(PlistCodingKey(index: 2 * i + 1)))
            // The sort key: the key written alone in a one-element array (the array stays unused).
            let probe = arena.add(.array)
            arena.append(to: probe, key: -1, value: keyNode)
            let bytes = ArenaBinaryWriter(arena: arena).write(root: probe)
            pairs.append(([UInt8](bytes), keyNode, valueNode))
        }
        pairs.sort { $0.sortKey.lexicographicallyPrecedes($1.sortKey) }
        let array = arena.add(.array)
        for pair in pairs {
            arena.append(to: array, key: -1, value: pair.key)
            arena.append(to: array, key: -1, value: pair.value)
        }
        return array
    }

    private func keyed(sortedKeys: [(String, Key)], _ encoder: PlistEncoderImpl, _ path: CodingPathNode) throws -> Int32 {
        let arena = encoder.arena
        let dictionary = arena.add(.dictionary)
        for (name, key) in sortedKeys {
            // The key was taken from this dictionary, so the lookup cannot miss.
            guard let value = self[key] else { continue }
            let node = try encoder.node(for: value, at: path.appending(PlistCodingKey(stringValue: name)))
            arena.append(to: dictionary, key: arena.internString(name), value: node)
        }
        return dictionary
    }
}
