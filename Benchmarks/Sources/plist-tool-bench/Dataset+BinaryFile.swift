import Foundation
import PlistCodec

/// The record shape of `plist-bench` (issue 2), rebuilt here: every kind of value a property list
/// holds, with shared tag strings, UTF-16 notes and 64-byte blobs.
struct Record: Codable {
    struct Point: Codable {
        var x: Int
        var y: Int
    }

    var id: Int
    var name: String
    var note: String
    var score: Double
    var created: Date
    var active: Bool
    var tags: [String]
    var blob: Data
    var position: Point
    var parent: Int?
}

/// SplitMix64: a small seedable generator, so every run writes the same file.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum Records {
    static let seed: UInt64 = 0x504C_4953_5442_454E

    /// `count` records from `seed`, built as `plist-bench` builds them.
    static func make(count: Int, seed: UInt64 = seed) -> [Record] {
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
            let millis = Double(rng.next() % 200_000_000_000)
            return Record(
                id: i, name: name, note: note, score: Double(rng.next() % 1_000_000) / 100,
                created: Date(timeIntervalSinceReferenceDate: 600_000_000 + millis / 1000),
                active: rng.next() % 2 == 0, tags: tags, blob: blob,
                position: Record.Point(x: Int(rng.next() % 2000) - 1000, y: Int(rng.next() % 2000) - 1000),
                parent: i % 2 == 0 ? nil : Int(rng.next() % UInt64(max(count, 1))))
        }
    }

    /// A binary property list of records about `bytes` long: the size of a sample fixes the count.
    static func binaryFile(approximately bytes: Int) throws -> (data: Data, records: Int) {
        var encoder = PlistEncoder()
        encoder.outputFormat = .binary
        let sample = try encoder.encode(make(count: 10_000))
        let count = max(1, Int(Double(bytes) / Double(sample.count) * 10_000))
        return (try encoder.encode(make(count: count)), count)
    }
}
