import Foundation

// Codable model types for differential tests. All conformances are synthesized, so the encoders see
// exactly the container calls real apps make: keyed containers in declaration order, `encodeIfPresent`
// for optionals, unkeyed containers for arrays, `[String: V]` as keyed containers.

/// An enum with `String` raw values, including non-ASCII ones.
public enum RandomMood: String, Codable, CaseIterable, Sendable {
    case calm, busy, sleepy = "zzz", accented = "café", astral = "🚀", empty = ""
}

/// An enum with signed 16-bit raw values.
public enum RandomLevel: Int16, Codable, CaseIterable, Sendable {
    case lowest = -32768, low = -1, zero = 0, byte = 255, beyondByte = 256, highest = 32767
}

/// An enum with `UInt64` raw values (written as 16-byte integers by Foundation).
public enum RandomRank: UInt64, Codable, CaseIterable, Sendable {
    case none = 0, first = 1, huge = 18_446_744_073_709_551_615
}

/// A struct with no fields: an empty dictionary.
public struct EmptyModel: Codable, Sendable {
    /// The empty value.
    public init() {}
}

/// One field of every scalar kind, each integer width and sign included.
public struct RandomScalars: Codable, Sendable {
    /// Signed integers of every width.
    public var int: Int, int8: Int8, int16: Int16, int32: Int32, int64: Int64
    /// Unsigned integers of every width (`UInt` and `UInt64` are 16-byte integers in Foundation's files).
    public var uint: UInt, uint8: UInt8, uint16: UInt16, uint32: UInt32, uint64: UInt64
    /// Floating point and Boolean fields.
    public var float: Float, double: Double, bool: Bool
    /// Object fields.
    public var string: String, date: Date, data: Data
}

/// Optional fields of several kinds; `nil` ones are left out of the encoded dictionary.
public struct RandomOptionals: Codable, Sendable {
    /// Optional integers.
    public var int: Int?, int8: Int8?, uint16: UInt16?, uint64: UInt64?
    /// Optional floating point and Boolean fields.
    public var float: Float?, double: Double?, bool: Bool?
    /// Optional object fields.
    public var string: String?, date: Date?, data: Data?
    /// Optional enums, structs and arrays.
    public var mood: RandomMood?, leaf: RandomLeaf?, strings: [String]?, empty: EmptyModel?
}

/// A small struct used in arrays and dictionaries.
public struct RandomLeaf: Codable, Sendable {
    /// Scalar fields.
    public var name: String, value: Double, count: Int32
    /// An optional date, an enum and an array.
    public var when: Date?, mood: RandomMood, tags: [String]
}

/// Arrays and dictionaries of every kind, nested ones and empty ones.
public struct RandomCollections: Codable, Sendable {
    /// Arrays of integers.
    public var ints: [Int], int8s: [Int8], uint16s: [UInt16], uint32s: [UInt32], uint64s: [UInt64]
    /// Arrays of other scalars.
    public var floats: [Float], doubles: [Double], bools: [Bool], strings: [String]
    /// Arrays of objects; `bytes` is an array of integers, not data.
    public var dates: [Date], blobs: [Data], bytes: [UInt8]
    /// Nested arrays and arrays of optionals (nil is the string `$null`).
    public var matrix: [[Int32]], optionalStrings: [String?], optionalInts: [Int?]
    /// Arrays of structs and enums.
    public var leaves: [RandomLeaf], empties: [EmptyModel], moods: [RandomMood]
    /// `[String: V]` dictionaries (Foundation sorts their keys).
    public var byName: [String: Int64], leafByName: [String: RandomLeaf], listsByName: [String: [String]]
    /// Nested dictionaries.
    public var nested: [String: [String: Double]], datesByName: [String: Date]
    /// At most one key: with more, Foundation's binary key order follows the hash seed.
    public var oneIntKey: [Int: String]
}

/// The root of a generated value: every other model, plus children to nest documents.
public struct RandomDocument: Codable, Sendable {
    /// The document's title.
    public var title: String
    /// One field of every scalar kind.
    public var scalars: RandomScalars
    /// Optional fields.
    public var optionals: RandomOptionals
    /// Arrays and dictionaries.
    public var collections: RandomCollections
    /// Enums with `Int16`, `UInt64` and `String` raw values.
    public var level: RandomLevel, rank: RandomRank, mood: RandomMood
    /// An empty struct.
    public var empty: EmptyModel
    /// Nested documents.
    public var children: [RandomDocument]
    /// Sometimes one more document, in an optional array.
    public var parent: [RandomDocument]?
}

/// Builds random instances of the model types from a `RandomValues` source.
public struct RandomModels: Sendable {
    /// The source of scalar values (and of randomness).
    public var values: RandomValues

    /// Creates a model builder seeded with `seed`; `forXML` keeps NUL out of strings.
    public init(seed: UInt64, forXML: Bool) {
        values = RandomValues(seed: seed, forXML: forXML)
    }

    private mutating func count(upTo max: Int = 20) -> Int { values.rng.count(upTo: max) }
    private mutating func maybe<T>(_ make: (inout Self) -> T) -> T? {
        values.rng.chance(0.6) ? make(&self) : nil
    }
    /// An array of `make()` results, usually short (see `SeededGenerator.count(upTo:)`).
    public mutating func array<T>(upTo max: Int = 20, _ make: (inout Self) -> T) -> [T] {
        (0..<count(upTo: max)).map { _ in make(&self) }
    }
    /// A `[String: T]` of `make()` results under random keys.
    public mutating func dictionary<T>(upTo max: Int = 20, _ make: (inout Self) -> T) -> [String: T] {
        var result: [String: T] = [:]
        for _ in 0..<count(upTo: max) { result[values.string()] = make(&self) }
        return result
    }

    /// A random `RandomScalars`.
    public mutating func scalars() -> RandomScalars {
        RandomScalars(int: values.integer(), int8: values.integer(), int16: values.integer(), int32: values.integer(),
                int64: values.integer(), uint: values.integer(), uint8: values.integer(),
                uint16: values.integer(), uint32: values.integer(), uint64: values.integer(),
                float: values.float(), double: values.double(), bool: values.rng.chance(0.5),
                string: values.string(), date: values.date(), data: values.data())
    }

    /// A random `RandomLeaf`.
    public mutating func leaf() -> RandomLeaf {
        RandomLeaf(name: values.string(), value: values.double(), count: values.integer(),
             when: maybe { $0.values.date() }, mood: values.rng.pick(RandomMood.allCases),
             tags: array(upTo: 5) { $0.values.string() })
    }

    /// A random `RandomOptionals`, about 60% of its fields present.
    public mutating func optionals() -> RandomOptionals {
        RandomOptionals(int: maybe { $0.values.integer() }, int8: maybe { $0.values.integer() },
                  uint16: maybe { $0.values.integer() }, uint64: maybe { $0.values.integer() },
                  float: maybe { $0.values.float() }, double: maybe { $0.values.double() },
                  bool: maybe { $0.values.rng.chance(0.5) }, string: maybe { $0.values.string() },
                  date: maybe { $0.values.date() }, data: maybe { $0.values.data() },
                  mood: maybe { $0.values.rng.pick(RandomMood.allCases) }, leaf: maybe { $0.leaf() },
                  strings: maybe { $0.array { $0.values.string() } }, empty: maybe { _ in EmptyModel() })
    }

    /// A random `RandomCollections`; most arrays are short, some long, some empty.
    public mutating func collections() -> RandomCollections {
        RandomCollections(
            ints: array { $0.values.integer() }, int8s: array { $0.values.integer() },
            uint16s: array { $0.values.integer() }, uint32s: array { $0.values.integer() },
            uint64s: array { $0.values.integer() }, floats: array { $0.values.float() },
            doubles: array { $0.values.double() }, bools: array { $0.values.rng.chance(0.5) },
            strings: array(upTo: 40) { $0.values.string() }, dates: array { $0.values.date() },
            blobs: array(upTo: 5) { $0.values.data() }, bytes: array(upTo: 40) { $0.values.integer() },
            matrix: array(upTo: 5) { $0.array(upTo: 5) { $0.values.integer() } },
            optionalStrings: array { $0.maybe { $0.values.string() } },
            optionalInts: array { $0.maybe { $0.values.integer() } },
            leaves: array(upTo: 6) { $0.leaf() }, empties: array(upTo: 3) { _ in EmptyModel() },
            moods: array { $0.values.rng.pick(RandomMood.allCases) },
            byName: dictionary { $0.values.integer() }, leafByName: dictionary(upTo: 4) { $0.leaf() },
            listsByName: dictionary(upTo: 4) { $0.array(upTo: 4) { $0.values.string() } },
            nested: dictionary(upTo: 3) { $0.dictionary(upTo: 4) { $0.values.double() } },
            datesByName: dictionary(upTo: 5) { $0.values.date() },
            oneIntKey: values.rng.chance(0.5) ? [values.integer(): values.string()] : [:])
    }

    /// A random `RandomDocument`, with nested children down to `depth` levels.
    public mutating func document(depth: Int = 2) -> RandomDocument {
        let childCount = depth > 0 ? values.rng.pick([0, 0, 0, 1, 1, 2]) : 0
        return RandomDocument(
            title: values.string(), scalars: scalars(), optionals: optionals(), collections: collections(),
            level: values.rng.pick(RandomLevel.allCases), rank: values.rng.pick(RandomRank.allCases),
            mood: values.rng.pick(RandomMood.allCases), empty: EmptyModel(),
            children: (0..<childCount).map { _ in document(depth: depth - 1) },
            parent: depth > 0 && values.rng.chance(0.2) ? [document(depth: 0)] : nil)
    }
}
