import Foundation

// `==` compares what a file holds, including the order of each dictionary's keys (a binary file
// written from a sorted dictionary differs from one written in declaration order). Stores that
// decide "did the value change?" must not care about that order: `PropertyListEncoder` writes
// keys sorted while an in-memory encoding keeps declaration order, and the two mean the same value.
extension PlistValue {
    /// Whether `self` and `other` hold the same value, ignoring the order of dictionary keys.
    ///
    /// Everything else compares as `==` does: strings by exact Unicode scalars, reals and dates by
    /// bit pattern, arrays in order. Use it wherever a store decides whether something changed.
    ///
    /// ```swift
    /// let a: PlistValue = .dictionary(["b": 1, "a": 2])
    /// let b: PlistValue = .dictionary(["a": 2, "b": 1])
    /// a == b                       // false: a file written from each differs
    /// a.hasSameContents(as: b)     // true
    /// ```
    public func hasSameContents(as other: PlistValue) -> Bool {
        switch (self, other) {
        case let (.array(a), .array(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.hasSameContents(as: $1) }
        case let (.dictionary(a), .dictionary(b)):
            return a.hasSameContents(as: b)
        default:
            return self == other
        }
    }
}

extension PlistDictionary {
    /// Whether both dictionaries hold the same keys with the same values, in any order.
    ///
    /// Keys compare by exact Unicode scalars, values by `PlistValue.hasSameContents(as:)`.
    public func hasSameContents(as other: PlistDictionary) -> Bool {
        guard keys.count == other.keys.count else { return false }
        if self == other { return true }
        if keys.count <= 8 {
            for (key, value) in self {
                guard let theirs = other[key], value.hasSameContents(as: theirs) else { return false }
            }
            return true
        }
        var theirs: [ScalarKey: PlistValue] = [:]
        theirs.reserveCapacity(other.count)
        for (key, value) in other { theirs[ScalarKey(key)] = value }
        for (key, value) in self {
            guard let match = theirs[ScalarKey(key)], value.hasSameContents(as: match) else { return false }
        }
        return true
    }
}

/// A dictionary key that compares by exact Unicode scalars, as `PlistDictionary` does.
private struct ScalarKey: Hashable {
    let scalars: [UInt32]
    init(_ key: String) { scalars = key.unicodeScalars.map(\.value) }
}
