import Foundation

// The nested Codable model the two decoder targets (PlistDecoder, DocumentStore's JSONValueDecoder)
// decode: one of each shape a Decodable asks a decoder for, so a fuzzed input reaches every container
// and scalar path. Hand-made seeds in `Fuzz/Seeds/<target>/` are encodings of it.

/// The root: keyed containers, nested arrays and dictionaries, optionals, enums, dates and data.
public struct FuzzModel: Codable {
    var title: String
    var version: Int32
    var enabled: Bool
    var ratio: Double
    var created: Date
    var payload: Data
    var items: [Item]
    var byName: [String: Item]
    var byNumber: [Int: Float]
    var matrix: [[UInt8]]
    var shapes: [Shape]
    var kind: Kind
    var note: String?
    var parent: Item?
    var big: UInt64?
    var small: Int8?
}

/// A nested keyed value with optionals at several depths.
struct Item: Codable {
    var name: String
    var count: Int
    var weight: Float?
    var tags: [String]
    var stamp: Date?
    var blob: Data?
    var children: [Item]?
}

/// A raw-value enum: a string that must be one of the cases.
enum Kind: String, Codable {
    case plain, fancy, other
}

/// An enum with associated values: synthesized Codable nests a keyed container per case.
enum Shape: Codable {
    case circle(radius: Double)
    case square(side: Int16, label: String?)
    case empty
}
