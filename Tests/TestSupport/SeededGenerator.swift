import Foundation

/// A deterministic SplitMix64 random number generator, so a failing random test can be replayed.
///
/// ```swift
/// var rng = SeededGenerator(seed: 42)
/// let n = Int.random(in: 0..<10, using: &rng)
/// ```
///
/// SplitMix64 (Steele, Lea and Flood, 2014) passes BigCrush, needs one word of state and gives the
/// same sequence on every platform, which is all a replayable test needs.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The seed this generator started from.
    public let seed: UInt64
    private var state: UInt64

    /// Creates a generator that yields the sequence determined by `seed`.
    public init(seed: UInt64) {
        self.seed = seed
        self.state = seed
    }

    /// Returns the next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Returns `true` with probability `probability` (0...1).
    public mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }

    /// Returns a random element of a non-empty collection.
    public mutating func pick<C: Collection>(_ items: C) -> C.Element where C.Index == Int {
        items[items.startIndex + Int.random(in: 0..<items.count, using: &self)]
    }

    /// Returns a random integer in `range`.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    /// Returns a count, usually small (0...4), sometimes up to `max`.
    public mutating func count(upTo max: Int = 20) -> Int {
        chance(0.85) ? int(in: 0...min(4, max)) : int(in: 0...max)
    }
}

/// Where random tests get their seeds: a fresh one each run, or a replayed one from the environment.
public enum TestSeed {
    /// The environment variable that replays a differential run: `PLIST_DIFF_SEED=1234 swift test ...`.
    public static let variable = "PLIST_DIFF_SEED"

    /// The seed named by `PLIST_DIFF_SEED` (decimal or `0x` hex) if it is set, otherwise a fresh random seed.
    ///
    /// The environment is only read, never changed.
    public static func make() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment[variable] {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("0x"), let value = UInt64(trimmed.dropFirst(2), radix: 16) { return value }
            if let value = UInt64(trimmed) { return value }
        }
        return UInt64.random(in: 0...UInt64.max)
    }

    /// A scale factor for the number of generated values, from `PLIST_DIFF_SCALE` (default 1).
    ///
    /// `PLIST_DIFF_SCALE=10` runs ten times as many values when hunting for rare failures.
    public static var scale: Int {
        if let text = ProcessInfo.processInfo.environment["PLIST_DIFF_SCALE"], let value = Int(text), value > 0 {
            return value
        }
        return 1
    }
}
