import Foundation

/// The input of `BinaryPlistWriter` and of `XMLPlistWriter` (the streaming converter's writer): a
/// property-list tree, converted from a `PlistValue` (`ValueXMLWriter` writes XML from the value
/// itself). `PlistEncoder` writes through an `EncodingArena` instead; `.null` and `.isolated` are
/// what it needed here before, and the writers still handle them.
enum PlistNode {
    /// Codable's `nil`: written as the string `$null`, but one object of its own (never shared with
    /// a real `"$null"` string), as `PropertyListEncoder` writes it.
    case null
    case bool(Bool)
    /// Any integer that is not 16 bytes wide.
    case int(Int64)
    /// A 16-byte integer (`UInt64`/`UInt`, or beyond `Int64`).
    case wideInt(Int128)
    case float(Float)
    case double(Double)
    case string(String)
    /// Seconds since 2001-01-01T00:00:00Z.
    case date(Double)
    case data(Data)
    case uid(UInt64)
    case array(NodeArray)
    case dictionary(NodeDictionary)
    /// A subtree written by a `superEncoder()`: `PropertyListEncoder` gives it a sharing table of its
    /// own, so its scalars (booleans and `nil` included) are not shared with the rest of the file.
    indirect case isolated(PlistNode)

    init(_ value: PlistValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .integer(let i):
            if i.isWide { self = .wideInt(i.value) } else { self = .int(Int64(truncatingIfNeeded: i.value)) }
        case .real(let d): self = .double(d)
        case .float(let f): self = .float(f)
        case .bool(let b): self = .bool(b)
        case .date(let d): self = .date(d.timeIntervalSinceReferenceDate)
        case .data(let d): self = .data(d)
        case .uid(let u): self = .uid(u)
        case .array(let a): self = .array(NodeArray(a.map(PlistNode.init)))
        case .dictionary(let d):
            self = .dictionary(NodeDictionary(uniqueKeys: d.keys, values: d.values.map(PlistNode.init)))
        }
    }
}

/// An array's elements.
final class NodeArray {
    @exclusivity(unchecked) var items: [PlistNode]
    init(_ items: [PlistNode] = []) { self.items = items }
}

/// A dictionary's entries, in order, with distinct keys.
final class NodeDictionary {
    /// Keys and values together: one allocation per dictionary instead of two.
    let entries: [(key: String, value: PlistNode)]

    init(uniqueKeys keys: [String], values: [PlistNode]) {
        entries = Array(zip(keys, values))
    }

    var count: Int { entries.count }
}
