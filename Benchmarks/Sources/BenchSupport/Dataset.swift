import Foundation

/// One row of the property-list benchmarks' dataset (`plist-bench`, `plist-tool-bench`): every kind
/// of value a property list holds.
public struct Record: Codable, Equatable, Sendable {
    /// A point nested inside each record, so the dataset has a keyed container two levels deep.
    public struct Point: Codable, Equatable, Sendable {
        public var x: Int
        public var y: Int
    }

    public var id: Int
    public var name: String
    public var note: String
    public var score: Double
    public var created: Date
    public var active: Bool
    public var tags: [String]
    public var blob: Data
    public var position: Point
    public var parent: Int?
}

/// A small, fast, seedable generator (SplitMix64), so every run builds the same dataset.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

public enum Dataset {
    /// The seed every run uses; printed with the results.
    public static let seed: UInt64 = 0x504C_4953_5442_454E

    /// Builds `count` records from `seed`.
    ///
    /// Strings are NFC and scores are never `-0.0`, so Foundation's encoder and ours must agree byte
    /// for byte (they differ on purpose only for `-0.0` and for strings that differ in normalization).
    public static func make(count: Int, seed: UInt64 = seed) -> [Record] {
        var rng = SplitMix64(seed: seed)
        let asciiLetters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let nonASCII = Array("äöüßéèêçñåøæœłžščřğışțăâîόλγσπжщыюяあいうえおかきくけこ日本語中文한국어")
        let tagPool = (0..<50).map { "tag-\($0)" }

        return (0..<count).map { i in
            let name = String((0..<12).map { _ in asciiLetters[Int(rng.next() % UInt64(asciiLetters.count))] })
            let note = String((0..<30).map { _ in nonASCII[Int(rng.next() % UInt64(nonASCII.count))] })
            let tags = (0..<3).map { _ in tagPool[Int(rng.next() % UInt64(tagPool.count))] }
            var blob = Data(count: 64)
            for j in 0..<64 { blob[j] = UInt8(truncatingIfNeeded: rng.next()) }
            let millis = Double(rng.next() % 200_000_000_000) // about six years, in milliseconds
            return Record(
                id: i,
                name: name,
                note: note,
                score: Double(rng.next() % 1_000_000) / 100,
                created: Date(timeIntervalSinceReferenceDate: 600_000_000 + millis / 1000),
                active: rng.next() % 2 == 0,
                tags: tags,
                blob: blob,
                position: Record.Point(x: Int(rng.next() % 2000) - 1000, y: Int(rng.next() % 2000) - 1000),
                parent: i % 2 == 0 ? nil : Int(rng.next() % UInt64(max(count, 1)))
            )
        }
    }
}
