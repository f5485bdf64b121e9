import PlistCodec

/// Where two trees first differ (dictionaries compared by key, in any order), for a check's message.
///
/// A 64-bit real and a 32-bit float of exactly the same value count as equal: libplist writes every
/// real that a float holds exactly as a float, which changes the file but not the value.
func firstDifference(_ a: PlistValue, _ b: PlistValue, path: String = "root") -> String? {
    switch (a, b) {
    case (.array(let x), .array(let y)):
        guard x.count == y.count else { return "\(path): \(x.count) against \(y.count) elements" }
        for (index, pair) in zip(x, y).enumerated() {
            if let found = firstDifference(pair.0, pair.1, path: "\(path)[\(index)]") { return found }
        }
        return nil
    case (.dictionary(let x), .dictionary(let y)):
        guard Set(x.keys) == Set(y.keys) else { return "\(path): keys \(x.keys.sorted()) against \(y.keys.sorted())" }
        let other = Dictionary(uniqueKeysWithValues: zip(y.keys, y.values))
        for (key, value) in zip(x.keys, x.values) {
            if let found = firstDifference(value, other[key]!, path: "\(path).\(key)") { return found }
        }
        return nil
    case (.real(let x), .float(let y)), (.float(let y), .real(let x)):
        return Double(y) == x ? nil : "\(path): \(x) against \(y)"
    default:
        return a == b ? nil : "\(path): \(a) against \(b)"
    }
}
