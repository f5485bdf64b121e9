import PlistCodec

/// How many values `value` holds once shared containers are counted at every place they appear,
/// counting no further than `limit + 1`.
///
/// A binary property list may refer to one container from many places, and the reader shares it
/// rather than decoding it again, so a 300-byte file can read, in microseconds, into a value of 2^60
/// nodes (see `bin_shared_fanout_2_60.plist` in Docs/Fuzzing.md's findings). Everything that walks the
/// value (comparing, writing, decoding into a model) then takes that long. The targets check those
/// walks only on values below a bound, so the fuzzer explores readers instead of waiting on a walk whose
/// length is the file's real size.
public func plistExpandedCount(_ value: PlistValue, limit: Int) -> Int {
    var count = 0
    func visit(_ value: PlistValue) -> Bool {
        count += 1
        guard count <= limit else { return false }
        switch value {
        case .array(let items): return items.allSatisfy(visit)
        case .dictionary(let entries): return entries.values.allSatisfy(visit)
        default: return true
        }
    }
    _ = visit(value)
    return count
}

/// The most expanded values a target compares, writes or decodes (far above any seed: the largest
/// fixture holds a few thousand).
public let fuzzExpansionLimit = 100_000
