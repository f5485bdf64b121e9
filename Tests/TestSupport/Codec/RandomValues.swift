import Foundation

/// Makes random scalar values for differential tests: edge cases of every kind, and repeats.
///
/// ```swift
/// var values = RandomValues(seed: 7, forXML: true)
/// let s = values.string()      // NFC, never NUL (XML cannot hold NUL)
/// let d = values.double()      // includes nan and infinities, never -0.0
/// ```
///
/// Every value is one that `Foundation.PropertyListEncoder` keeps exactly: strings are NFC-normalized
/// (Foundation merges canonically equivalent strings), zeros are `+0.0` (Foundation merges `0.0` and
/// `-0.0`), and the only NaN is `.nan` (Foundation merges all NaNs into the first one). About a quarter
/// of the values repeat an earlier one, so the writers' sharing of equal objects is exercised.
public struct RandomValues: Sendable {
    /// The underlying generator.
    public var rng: SeededGenerator
    /// Whether the values must fit XML (no NUL characters in strings).
    public let forXML: Bool
    /// Probability that a value repeats one made before.
    public var repeatChance = 0.25
    /// Probability that a `Data` value is about 64 KiB long.
    public var bigDataChance = 0.003

    private var strings: [String] = []
    private var doubles: [Double] = []
    private var floats: [Float] = []
    private var dates: [Date] = []
    private var blobs: [Data] = []
    private var integers: [Int64] = []

    /// Creates a value source seeded with `seed`.
    public init(seed: UInt64, forXML: Bool) {
        self.rng = SeededGenerator(seed: seed)
        self.forXML = forXML
    }

    private mutating func reuse<T>(_ pool: [T]) -> T? {
        guard !pool.isEmpty, rng.chance(repeatChance) else { return nil }
        return rng.pick(pool)
    }

    private static func remember<T>(_ value: T, in pool: inout [T]) {
        if pool.count < 64 { pool.append(value) } else { pool[Int(UInt(bitPattern: pool.count &* 31) % 64)] = value }
    }

    // MARK: Integers

    /// Values around every width boundary, as 128-bit integers so each width can pick the ones it holds.
    private static let integerEdges: [Int128] = {
        var edges: [Int128] = [0, 1, 2, 14, 15, 16, 127, 128, 254, 255, 256, 32767, 32768, 65534, 65535, 65536,
                               0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF, 0x1_0000_0000,
                               Int128(Int64.max) - 1, Int128(Int64.max), Int128(Int64.max) + 1,
                               Int128(UInt64.max) - 1, Int128(UInt64.max)]
        edges += edges.map { -$0 }
        edges += [Int128(Int64.min), Int128(Int64.min) + 1, -129, -32769]
        return edges
    }()

    /// A random integer of type `T`: a boundary value, a small one, a repeat, or random bits.
    public mutating func integer<T: FixedWidthInteger & Sendable>(_: T.Type = T.self) -> T {
        if let old = reuse(integers), let value = T(exactly: old) { return value }
        let value: T
        switch rng.int(in: 0...9) {
        case 0...3:
            let fitting = Self.integerEdges.compactMap { T(exactly: $0) }
            value = rng.pick(fitting)
        case 4...6:
            value = T(clamping: rng.int(in: -300...300))
        case 7:
            value = rng.chance(0.5) ? T.min : T.max
        default:
            let bits = T(truncatingIfNeeded: rng.next() >> UInt64(rng.int(in: 0...63)))
            value = T.isSigned && rng.chance(0.5) ? 0 &- bits : bits
        }
        if let wide = Int64(exactly: value) { Self.remember(wide, in: &integers) }
        return value
    }

    // MARK: Floating point

    /// A random `Double`: specials (nan, infinities, subnormals, extremes), integers, fractions, random bits.
    public mutating func double() -> Double {
        if let old = reuse(doubles) { return old }
        var value: Double
        switch rng.int(in: 0...9) {
        case 0...2:
            value = rng.pick([0.0, 1, -1, 0.1, 0.5, -2.5, 1e16, 1e-05, 1e21, 123456789.125, .pi, 255, 256, 65536, 9007199254740992, 9007199254740994,
                              4294967296, .nan, .infinity, -.infinity, .leastNonzeroMagnitude,
                              -.leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
                              -.greatestFiniteMagnitude, 1e300, -1e-300, 0.1 + 0.2])
        case 3...4:
            value = Double(rng.int(in: -70000...70000))
        case 5...6:
            value = Double.random(in: -1e6...1e6, using: &rng)
        default:
            value = Double(bitPattern: rng.next())
        }
        if value.isNaN { value = .nan }
        if value == 0 { value = 0.0 }
        Self.remember(value, in: &doubles)
        return value
    }

    /// A random `Float`, with the same kinds of edge cases as `double()`.
    public mutating func float() -> Float {
        if let old = reuse(floats) { return old }
        var value: Float
        switch rng.int(in: 0...9) {
        case 0...2:
            value = rng.pick([0.0, 1, -1, 0.1, 0.5, 16777216, 16777218, 3.4e38, .nan, .infinity, -.infinity,
                              .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
                              .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e-30, .pi])
        case 3...4:
            value = Float(rng.int(in: -70000...70000))
        case 5...6:
            value = Float.random(in: -1e4...1e4, using: &rng)
        default:
            value = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
        }
        if value.isNaN { value = .nan }
        if value == 0 { value = 0.0 }
        Self.remember(value, in: &floats)
        return value
    }

    // MARK: Dates

    /// 0001-01-03 (after the Julian/Gregorian two-day gap, so year 1 in both calendars) to about 3997.
    private static let earliest: TimeInterval = -63_113_904_000 + 2 * 86_400
    private static let latest: TimeInterval = 63_000_000_000

    /// A random date: with or without a fraction, before 2001, 1970 and 1582, years 1...~4000.
    public mutating func date() -> Date {
        if let old = reuse(dates) { return old }
        var seconds: TimeInterval
        switch rng.int(in: 0...9) {
        case 0...1:
            seconds = rng.pick([0, 1, -1, 0.5, -0.5, 123.75, -1.5, -978_307_200, -978_307_200.25,
                                 -13_197_600_000, -13_197_600_000.5, 86_400 * 365.25 * 22])
        case 2...3:
            seconds = TimeInterval(rng.int(in: -2_000_000_000...2_000_000_000))
        case 4...5:
            seconds = Double.random(in: -2e9...2e9, using: &rng)
        case 6:
            // Before the Gregorian reform (1582-10-15), where writers choose a calendar.
            seconds = Double.random(in: Self.earliest ... -13_197_600_000, using: &rng)
        default:
            seconds = Double.random(in: Self.earliest...Self.latest, using: &rng)
            if rng.chance(0.3) { seconds.round(.down) }
        }
        if seconds == 0 { seconds = 0.0 }
        let value = Date(timeIntervalSinceReferenceDate: seconds)
        Self.remember(value, in: &dates)
        return value
    }

    // MARK: Data

    /// A random blob whose length is near a binary-format count boundary (15, 255, 65535).
    public mutating func data() -> Data {
        if let old = reuse(blobs) { return old }
        let count: Int
        if rng.chance(bigDataChance) {
            count = rng.pick([65534, 65535, 65536, 65537])
        } else {
            count = rng.pick([0, 0, 1, 2, 3, 14, 15, 16, 17, 57, 58, 100, 254, 255, 256, 257])
        }
        var bytes = [UInt8](repeating: 0, count: count)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: rng.next()) }
        let value = Data(bytes)
        Self.remember(value, in: &blobs)
        return value
    }

    // MARK: Strings

    private static let pieces: [String] = [
        "a", "key", "Hello, world", "x_y-z.0", " ", "  lead", "trail  ", "<", ">", "&", "&amp;", "<string>",
        "]]>", "\"", "'", "\t", "\n", "\r\n", "$", "%@", "\\", "{", "}", "(", ")", ";", "=", "/*", "0", "-1", "1e5",
        "é", "ñ", "ß", "ÿ", "Ä", "\u{A0}", "€", "Ω", "漢字", "日本語", "한국어", "עברית", "العربية", "ไทย",
        "🚀", "😀", "👍🏽", "👨‍👩‍👧", "𝄞", "𐍈", "\u{1F1EB}\u{1F1F7}", "\u{E000}", "\u{FFFD}", "\u{FFFF}",
        "\u{10FFFF}", "\u{1}", "\u{1F}", "\u{7F}", "\u{80}", "\u{85}", "\u{200B}", "\u{2028}", "\r",
        // Equal to coding keys and enum raw values, so keys and values share string objects.
        "name", "value", "int", "string", "title", "calm", "zzz", "café", "🚀", "ints", "when",
    ]

    /// A random NFC string: empty, ASCII, Latin-1, CJK, astral, markup characters, controls; long at times.
    public mutating func string() -> String {
        if let old = reuse(strings) { return old }
        var text = ""
        switch rng.int(in: 0...9) {
        case 0:
            text = ""
        case 1...3:
            let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-")
            text = String((0..<rng.count(upTo: 40)).map { _ in rng.pick(letters) })
        case 4...7:
            for _ in 0..<rng.int(in: 1...6) { text += rng.pick(Self.pieces) }
        case 8:
            // Long strings cross the 15- and 255-character count boundaries.
            let unit = rng.pick(["a", "é", "漢", "🚀", "ab<&>"])
            var counts = [14, 15, 16, 127, 128, 254, 255, 256, 300]
            if rng.chance(0.003) { counts = [65_535, 65_536, 70_000] }
            text = String(repeating: unit, count: rng.pick(counts))
        default:
            // Random scalars from all planes (surrogates are not scalars and cannot occur).
            for _ in 0..<rng.int(in: 1...8) {
                let limit: UInt32 = rng.pick([0x7F, 0xFF, 0xFFFF, 0x10FFFF])
                if let scalar = Unicode.Scalar(UInt32.random(in: 1...limit, using: &rng)) {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        if rng.chance(0.03) { text += "\u{0}" }  // XML too: Apple writes and reads a raw NUL
        text = text.precomposedStringWithCanonicalMapping
        Self.remember(text, in: &strings)
        return text
    }
}
