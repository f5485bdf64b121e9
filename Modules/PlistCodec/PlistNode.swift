import Foundation

/// The writers' input: a property-list tree plus Codable's `nil`, with containers boxed so the
/// Codable encoder can fill them in place while nested containers are still open.
///
/// `PlistValue` converts to this; `PlistEncoder` builds it directly, which avoids a second tree.
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

/// An array under construction.
final class NodeArray {
    @exclusivity(unchecked) var items: [PlistNode]
    init(_ items: [PlistNode] = []) { self.items = items }
}

/// A dictionary under construction, in insertion order. Setting an existing key replaces its value in
/// place, as `PropertyListEncoder` does when a key is encoded twice.
final class NodeDictionary {
    /// Keys and values together: one allocation per dictionary instead of two.
    @exclusivity(unchecked) private(set) var entries: [(key: String, value: PlistNode)]
    /// Built once the dictionary is large enough that a linear duplicate check would cost.
    private var index: [String: Int]?

    init(capacity: Int = 0) {
        entries = []
        if capacity > 0 { entries.reserveCapacity(capacity) }
    }

    init(uniqueKeys keys: [String], values: [PlistNode]) {
        entries = Array(zip(keys, values))
    }

    init(uniqueEntries: [(key: String, value: PlistNode)]) {
        entries = uniqueEntries
    }

    var count: Int { entries.count }
    var keys: [String] { entries.map(\.key) }
    var values: [PlistNode] { entries.map(\.value) }

    /// Appends without a duplicate check; the caller guarantees `key` is new.
    func appendUnique(_ key: String, _ value: PlistNode) {
        entries.append((key, value))
        if index != nil { index![key] = entries.count - 1 }
    }

    func position(of key: String) -> Int? {
        if let index { return index[key] }
        if entries.count < 24 {
            for i in entries.indices where entries[i].key == key { return i }
            return nil
        }
        var built = [String: Int](minimumCapacity: entries.count)
        for (i, e) in entries.enumerated() where built[e.key] == nil { built[e.key] = i }
        index = built
        return built[key]
    }

    func set(_ value: PlistNode, for key: String) {
        if let i = position(of: key) { entries[i].value = value } else { appendUnique(key, value) }
    }

    subscript(key: String) -> PlistNode? { position(of: key).map { entries[$0].value } }
}
