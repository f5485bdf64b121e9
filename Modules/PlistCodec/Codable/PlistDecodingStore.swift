import Foundation

/// The kinds of object a decoding store tells apart, named as `PlistValue.kindName` names them.
enum FlatKind: UInt8 {
    case string, integer, real, float, bool, date, data, array, dictionary, uid

    /// The kind as a file spells it, for type-mismatch messages.
    var name: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .real, .float: return "real"
        case .bool: return "bool"
        case .date: return "date"
        case .data: return "data"
        case .array: return "array"
        case .dictionary: return "dict"
        case .uid: return "UID"
        }
    }
}

/// Where a container's entries are in its store: an array's elements, or a dictionary's keys
/// (positions `0..<count`) followed by its values (`count..<2 * count`).
struct FlatContainer {
    var start: Int
    var count: Int
}

/// A checked property list that `FlatDecoder` reads in place, object by object, instead of through a
/// `PlistValue` tree: the binary object table itself (`BinaryDecodingStore`) or a flat index of an
/// XML document's elements (`XMLDecodingIndex`).
///
/// A store is only built from input its format's scanner has checked completely, so it answers
/// without throwing: every failure to read was reported before decoding began, with the error the
/// tree path gives. Objects are named by an `Int` that only the store interprets. A store is a class
/// so caches it keeps live as long as the decoders that read it; the decoder is generic over it, so
/// each call below is direct.
protocol PlistDecodingStore: AnyObject {
    func kind(_ node: Int) -> FlatKind
    /// The entries of an array or dictionary node.
    func container(_ node: Int) -> FlatContainer
    /// The node at position `i` of `container`.
    func element(_ container: FlatContainer, _ i: Int) -> Int
    /// Whether a dictionary's keys are all ASCII and all different, so a key name matches at most
    /// one of them, and only by equal bytes.
    func keysAreSimple(_ node: Int, _ container: FlatContainer) -> Bool
    /// Whether the string node, known to be ASCII, has exactly the bytes of `name` (`bytes` are
    /// its UTF-8).
    func asciiKey(_ node: Int, equals name: String, bytes: UnsafeBufferPointer<UInt8>) -> Bool
    /// Whether two string nodes hold the same Unicode scalars.
    func sameString(_ a: Int, _ b: Int) -> Bool
    /// Whether the node is the string Codable writes for `nil`.
    func isNullMarker(_ node: Int) -> Bool
    func string(_ node: Int) -> String
    func integer(_ node: Int) -> Int128
    func real(_ node: Int) -> Double
    func float(_ node: Int) -> Float
    func bool(_ node: Int) -> Bool
    /// Seconds since 2001-01-01T00:00:00Z.
    func date(_ node: Int) -> Double
    func data(_ node: Int) -> Data
}
