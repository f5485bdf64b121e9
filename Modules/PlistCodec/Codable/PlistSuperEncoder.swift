import Foundation

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
