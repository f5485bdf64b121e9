import Foundation

// Building dictionaries from parsed key/value runs, shared by the XML and OpenStep readers.
//
// A file may repeat a key; Apple's parsers keep the last value. `PlistDictionary` keeps the first
// position and the last value, comparing keys by exact Unicode scalars. Its own subscript is a
// linear search, so readers check for repeats here: pairwise for small dictionaries, with a hash
// table for large ones, so a dictionary of n keys costs O(n) whatever its size.
extension XMLPlistReader {
    /// The dictionary of `keys[i]: values[i]`, in file order; a repeated key keeps its first
    /// position and its last value. `keys` and `values` must have the same count.
    static func makeDictionary(keys: ArraySlice<String>, values: ArraySlice<PlistValue>) -> PlistDictionary {
        let n = keys.count
        if n <= 16 {
            if !hasRepeatedKeySmall(keys) {
                return PlistDictionary(uniqueKeys: Array(keys), values: Array(values))
            }
        }
        var positions: [ExactKey: Int] = [:]
        positions.reserveCapacity(n)
        var outKeys: [String] = []
        var outValues: [PlistValue] = []
        outKeys.reserveCapacity(n)
        outValues.reserveCapacity(n)
        var valueIndex = values.startIndex
        for key in keys {
            let value = values[valueIndex]
            valueIndex += 1
            if let at = positions[ExactKey(string: key)] {
                outValues[at] = value
            } else {
                positions[ExactKey(string: key)] = outKeys.count
                outKeys.append(key)
                outValues.append(value)
            }
        }
        return PlistDictionary(uniqueKeys: outKeys, values: outValues)
    }

    private static func hasRepeatedKeySmall(_ keys: ArraySlice<String>) -> Bool {
        var i = keys.startIndex
        while i < keys.endIndex {
            var j = i + 1
            while j < keys.endIndex {
                if ExactKey.same(keys[i], keys[j]) { return true }
                j += 1
            }
            i += 1
        }
        return false
    }
}

/// A dictionary key compared by exact Unicode scalars rather than canonical equivalence.
struct ExactKey: Hashable {
    var string: String

    /// Whether two strings have the same scalars (and so the same UTF-8 bytes).
    static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
    }

    static func == (lhs: ExactKey, rhs: ExactKey) -> Bool { same(lhs.string, rhs.string) }

    // Strings with the same scalars are canonically equal, so `String`'s hash is consistent here.
    func hash(into hasher: inout Hasher) { hasher.combine(string) }
}
