/// A coding path kept as a linked list, so descending costs one small allocation instead of an array copy.
indirect enum CodingPathNode: Sendable {
    case root
    case node(CodingPathNode, any CodingKey, depth: Int)

    var depth: Int {
        switch self {
        case .root: return 0
        case .node(_, _, let d): return d
        }
    }

    func appending(_ key: any CodingKey) -> CodingPathNode { .node(self, key, depth: depth + 1) }

    var path: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while case .node(let parent, let key, _) = node {
            keys.append(key)
            node = parent
        }
        return keys.reversed()
    }
}

/// The key of an unkeyed container's element, and of dictionary entries.
///
/// An element's key spells its `stringValue` (`"Index 3"`) only when asked: coders make one per
/// element, and almost none is ever printed.
struct PlistCodingKey: CodingKey, Sendable {
    private let name: String?
    let intValue: Int?

    var stringValue: String { name ?? "Index \(intValue ?? 0)" }

    init(stringValue: String) { name = stringValue; intValue = nil }
    init(intValue: Int) { name = nil; self.intValue = intValue }
    init(index: Int) { self.init(intValue: index) }

    static let `super` = PlistCodingKey(stringValue: "super")
}
