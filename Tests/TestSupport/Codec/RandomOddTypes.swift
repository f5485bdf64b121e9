import Foundation

// Types whose Codable conformances use containers in unusual ways, for the differential tests.

/// A type whose `encode(to:)` asks for no container: Foundation refuses it at the top level.
public struct EncodesNothing: Codable, Sendable {
    /// The value.
    public init() {}
    /// Encodes nothing at all.
    public func encode(to encoder: any Encoder) throws {}
}

/// Holds an `EncodesNothing`, which becomes an empty dictionary when nested.
public struct HoldsNothing: Codable, Sendable {
    /// The field that encodes nothing.
    public var nothing = EncodesNothing()
    /// A field after it.
    public var after = "after"
    /// The value.
    public init() {}
}

/// Asks for the same containers twice and leaves super-encoders and nested containers unused.
///
/// Foundation merges both keyed containers into one dictionary, both unkeyed ones into one array, and
/// writes an unused super-encoder or nested container as an empty dictionary in encode order.
public struct ContainerReuse: Codable, Sendable {
    /// The value (it has no stored properties: the content is fixed).
    public init() {}

    /// Encodes the fixed content described above.
    public func encode(to encoder: any Encoder) throws {
        var first = encoder.container(keyedBy: RandomCodingKey.self)
        try first.encode("one", forKey: RandomCodingKey("a"))
        var second = encoder.container(keyedBy: RandomCodingKey.self)
        try second.encode(2, forKey: RandomCodingKey("b"))
        _ = first.superEncoder(forKey: RandomCodingKey("unused"))
        var nested = first.nestedContainer(keyedBy: RandomCodingKey.self, forKey: RandomCodingKey("n"))
        try nested.encode(true, forKey: RandomCodingKey("t"))
        var list = second.nestedUnkeyedContainer(forKey: RandomCodingKey("u"))
        try list.encode("one")
        _ = list.superEncoder()
        try list.encodeNil()
        var lists = second.nestedUnkeyedContainer(forKey: RandomCodingKey("u2"))
        var inner = lists.nestedUnkeyedContainer()
        try inner.encode(1)
        _ = lists.nestedContainer(keyedBy: RandomCodingKey.self)
        var again = encoder.container(keyedBy: RandomCodingKey.self)
        try again.encode("one", forKey: RandomCodingKey("z"))
    }

    /// Checks that the content is what `encode(to:)` wrote (throws otherwise).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: RandomCodingKey.self)
        let keys = container.allKeys.map(\.stringValue).sorted()
        var list = try container.nestedUnkeyedContainer(forKey: RandomCodingKey("u"))
        let first = try list.decode(String.self)
        _ = try list.nestedContainer(keyedBy: RandomCodingKey.self)
        let isNil = try list.decodeNil()
        guard keys == ["a", "b", "n", "u", "u2", "unused", "z"], first == "one", isNil, list.isAtEnd,
              try container.decode(Int.self, forKey: RandomCodingKey("b")) == 2 else {
            throw DecodingError.dataCorruptedError(forKey: RandomCodingKey("u"), in: container,
                                                   debugDescription: "unexpected content; keys \(keys)")
        }
    }
}

/// A chain of `depth` nested dictionaries and arrays.
public struct NestedChain: Codable, Sendable {
    /// The next level, or nothing at the bottom.
    public var inner: [NestedChain]
    /// A chain `depth` levels deep.
    public init(depth: Int) { inner = depth > 0 ? [NestedChain(depth: depth - 1)] : [] }
}

/// 128-bit integers, which `PropertyListEncoder` does not support.
public struct WideIntegers: Codable, Sendable {
    /// A signed 128-bit field.
    public var signed: Int128 = 5
    /// An unsigned 128-bit field.
    public var unsigned: UInt128 = 7
    /// The value.
    public init() {}
}

/// Encodes key "a" twice with key "b" between; the later value wins and is decoded back to the same value.
public struct KeyEncodedTwice: Codable, Sendable {
    /// The first element of the array that replaces "a", or the int that replaces it.
    public var first: Int
    /// The rest of that array (empty: "a" is replaced by an int).
    public var second: [Int]
    private enum Key: String, CodingKey { case a, b }

    /// Creates a value from its parts.
    public init(first: Int, second: [Int]) { self.first = first; self.second = second }

    /// Encodes "a", then "b", then "a" again.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(first + 1000, forKey: .a)
        try container.encode("between", forKey: .b)
        // The replacement is of another kind (an array) or of the same kind (an int).
        if second.isEmpty { try container.encode(first, forKey: .a) } else { try container.encode([first] + second, forKey: .a) }
    }

    /// Decodes the surviving "a".
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if let array = try? container.decode([Int].self, forKey: .a), let head = array.first {
            (first, second) = (head, Array(array.dropFirst()))
        } else {
            (first, second) = (try container.decode(Int.self, forKey: .a), [])
        }
        _ = try container.decode(String.self, forKey: .b)
    }
}
