import Foundation

/// The positions of a longest strictly increasing run (subsequence) of `values`, in order.
///
/// Patience sorting with a fast path: a value above the current longest run's end extends it without
/// a search, so mostly ordered input (live results after a few changes) costs O(n), and each value out
/// of order O(log n).
func increasingRun(_ values: [Int]) -> [Int] {
    guard !values.isEmpty else { return [] }
    var tails: [Int] = []          // position of the smallest end of a run of each length
    var previous = [Int](repeating: -1, count: values.count)
    for (position, value) in values.enumerated() {
        if let last = tails.last, values[last] >= value {
            var low = 0, high = tails.count - 1
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            previous[position] = low > 0 ? tails[low - 1] : -1
            tails[low] = position
        } else {
            previous[position] = tails.last ?? -1
            tails.append(position)
        }
    }
    var run: [Int] = []
    var position = tails[tails.count - 1]
    while position >= 0 {
        run.append(position)
        position = previous[position]
    }
    return run.reversed()
}

extension StorageValue {
    /// SQLite's order of two values with the BINARY collation: `NULL` first, then numbers (integers and
    /// reals compared by value), then text (byte by byte in UTF-8), then blobs. Negative, zero or positive.
    package func sqliteOrder(_ other: StorageValue) -> Int {
        switch (self, other) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case let (.integer(a), .integer(b)): return a < b ? -1 : (a == b ? 0 : 1)
        case let (.real(a), .real(b)): return a < b ? -1 : (a == b ? 0 : 1)
        case let (.integer(a), .real(b)): return Self.compare(a, b)
        case let (.real(a), .integer(b)): return -Self.compare(b, a)
        case (.integer, _), (.real, _): return -1
        case (_, .integer), (_, .real): return 1
        case let (.text(a), .text(b)): return Self.compareBytes(a.utf8, b.utf8)
        case (.text, .blob): return -1
        case (.blob, .text): return 1
        case let (.blob(a), .blob(b)): return Self.compareBytes(a, b)
        }
    }

    /// An integer and a real compared exactly, as SQLite does.
    private static func compare(_ integer: Int64, _ real: Double) -> Int {
        if real >= 9_223_372_036_854_775_808.0 { return -1 }
        if real < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = real.rounded(.down)
        let truncated = Int64(whole)
        if integer != truncated { return integer < truncated ? -1 : 1 }
        return real > whole ? -1 : 0
    }

    private static func compareBytes<C: Collection>(_ a: C, _ b: C) -> Int where C.Element == UInt8 {
        var left = a.makeIterator(), right = b.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }
}
