import Foundation

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
