import Foundation

/// A coding key made from any string, for hand-written keyed containers.
public struct RandomCodingKey: CodingKey, Hashable, Sendable {
    /// The key's text.
    public var stringValue: String
    /// Always nil: these keys are strings only.
    public var intValue: Int? { nil }
    /// A key with text `string`.
    public init(_ string: String) { stringValue = string }
    /// A key with text `stringValue`.
    public init?(stringValue: String) { self.stringValue = stringValue }
    /// Always nil: these keys are strings only.
    public init?(intValue: Int) { nil }
}

/// A value encoded through a single-value container.
public struct RandomWrapped: Codable, Sendable {
    /// The wrapped string.
    public var raw: String
    /// Wraps `raw`.
    public init(raw: String) { self.raw = raw }
    /// Decodes the string from a single-value container.
    public init(from decoder: any Decoder) throws { raw = try decoder.singleValueContainer().decode(String.self) }
    /// Encodes the string into a single-value container.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(raw)
    }
}

/// A type with a hand-written `encode(to:)` that uses every container API.
///
/// Nested keyed and unkeyed containers, `encodeNil`, `superEncoder(forKey:)`, keyed and unkeyed
/// `superEncoder()`, and single-value containers. Foundation gives each super-encoder subtree its own
/// table of shared values, so values repeated across those boundaries are written more than once.
public struct RandomManualContainers: Codable, Sendable {
    /// Encoded under "name" and again under "again", after the super-encoder subtrees.
    public var name: String
    /// Encoded through a nested unkeyed container.
    public var point: [Double]
    /// Encoded through a nested keyed container, keys sorted.
    public var meta: [String: Int]
    /// Encoded with `encodeNil(forKey:)` when nil.
    public var nothing: Int?
    /// Encoded through `superEncoder(forKey: "parent")`.
    public var parentPart: RandomLeaf
    /// Encoded through `superEncoder()` (key "super").
    public var superPart: RandomLeaf
    /// Each element encoded through the unkeyed container's `superEncoder()`.
    public var list: [RandomLeaf]
    /// Single-value-container values.
    public var wrapped: [RandomWrapped]

    private enum Key: String, CodingKey { case name, point, meta, nothing, parent, list, wrapped, again }

    /// Creates a value from its parts.
    public init(name: String, point: [Double], meta: [String: Int], nothing: Int?, parentPart: RandomLeaf,
                superPart: RandomLeaf, list: [RandomLeaf], wrapped: [RandomWrapped]) {
        self.name = name; self.point = point; self.meta = meta; self.nothing = nothing
        self.parentPart = parentPart; self.superPart = superPart; self.list = list; self.wrapped = wrapped
    }

    /// Encodes through every container API (see the type's documentation).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(name, forKey: .name)
        var pointContainer = container.nestedUnkeyedContainer(forKey: .point)
        for x in point { try pointContainer.encode(x) }
        var metaContainer = container.nestedContainer(keyedBy: RandomCodingKey.self, forKey: .meta)
        for (key, value) in meta.sorted(by: { $0.key < $1.key }) {
            try metaContainer.encode(value, forKey: RandomCodingKey(key))
        }
        if let nothing { try container.encode(nothing, forKey: .nothing) } else { try container.encodeNil(forKey: .nothing) }
        try parentPart.encode(to: container.superEncoder(forKey: .parent))
        try superPart.encode(to: container.superEncoder())
        var listContainer = container.nestedUnkeyedContainer(forKey: .list)
        for leaf in list { try leaf.encode(to: listContainer.superEncoder()) }
        try container.encode(wrapped, forKey: .wrapped)
        // The name again, after the super-encoder subtrees: shared with the first one.
        try container.encode(name, forKey: .again)
    }

    /// Decodes what `encode(to:)` wrote, through the matching decoding APIs.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        name = try container.decode(String.self, forKey: .name)
        var pointContainer = try container.nestedUnkeyedContainer(forKey: .point)
        var point: [Double] = []
        while !pointContainer.isAtEnd { point.append(try pointContainer.decode(Double.self)) }
        self.point = point
        let metaContainer = try container.nestedContainer(keyedBy: RandomCodingKey.self, forKey: .meta)
        var meta: [String: Int] = [:]
        for key in metaContainer.allKeys { meta[key.stringValue] = try metaContainer.decode(Int.self, forKey: key) }
        self.meta = meta
        nothing = try container.decodeNil(forKey: .nothing) ? nil : try container.decode(Int.self, forKey: .nothing)
        parentPart = try RandomLeaf(from: container.superDecoder(forKey: .parent))
        superPart = try RandomLeaf(from: container.superDecoder())
        var listContainer = try container.nestedUnkeyedContainer(forKey: .list)
        var list: [RandomLeaf] = []
        while !listContainer.isAtEnd { list.append(try RandomLeaf(from: listContainer.superDecoder())) }
        self.list = list
        wrapped = try container.decode([RandomWrapped].self, forKey: .wrapped)
        let again = try container.decode(String.self, forKey: .again)
        guard again.unicodeScalars.elementsEqual(name.unicodeScalars) else {
            throw DecodingError.dataCorruptedError(forKey: .again, in: container, debugDescription: "name differs")
        }
    }
}

extension RandomModels {
    /// A random `RandomManualContainers`.
    public mutating func manualContainers() -> RandomManualContainers {
        var rng = values.rng
        let pointCount = rng.count(upTo: 6)
        let metaCount = rng.count(upTo: 6)
        let listCount = rng.count(upTo: 4)
        let wrappedCount = rng.count(upTo: 6)
        let hasNothing = rng.chance(0.5)
        values.rng = rng
        var meta: [String: Int] = [:]
        for _ in 0..<metaCount { meta[values.string()] = values.integer() }
        return RandomManualContainers(
            name: values.string(), point: (0..<pointCount).map { _ in values.double() }, meta: meta,
            nothing: hasNothing ? values.integer() : nil, parentPart: leaf(), superPart: leaf(),
            list: (0..<listCount).map { _ in leaf() },
            wrapped: (0..<wrappedCount).map { _ in RandomWrapped(raw: values.string()) })
    }
}
