/// The only places where `PlistEncoder`'s bytes may differ from `Foundation.PropertyListEncoder`'s.
///
/// Each is a place where Foundation loses data or is not deterministic; everywhere else the differential
/// tests (DifferentialTests.swift) require equal bytes. Each test below shows Foundation's behaviour on
/// this machine (swift-foundation, the code of macOS 14+) next to ours.
///
/// 1. **Equal zeros (binary).** Foundation shares equal scalars and `0.0 == -0.0`, so the first zero
///    encoded wins: `[0.0, -0.0]` reads back as `[0.0, 0.0]` and `[-0.0, 0.0]` as `[-0.0, -0.0]`
///    (`Float` too). We keep both signs: one more object. XML keeps both in both (`0` and `-0`).
/// 2. **Unicode normalization (binary).** Foundation shares strings by Swift `==`, which is canonical
///    equivalence, so `"\u{E9}"` and `"e\u{301}"` become one object and read back as whichever came
///    first. We compare by scalars and keep two objects. XML keeps both in both.
/// 3. **`Dictionary` with non-`String` keys (binary).** Foundation writes keys in the dictionary's
///    iteration order, which depends on the hash seed and the dictionary's history, so equal dictionaries
///    can give different bytes. We sort the keys, so equal dictionaries give equal bytes. XML sorts keys
///    in both, so there our bytes equal Foundation's.
///
/// And one place where `PlistEncoder` matches Foundation but a value tree cannot:
///
/// 4. **`"$null"` next to a `nil` (binary).** Foundation writes the `nil` marker and a real string
///    `"$null"` as two objects; `PlistEncoder` does the same. Parsed into a `PlistValue`, both are
///    `.string("$null")`, so writing the tree back shares them: one object fewer, same values.
import Foundation
import PlistCodec
import Testing
import TestSupport

@Suite("Documented divergences from Foundation.PropertyListEncoder")
struct DivergenceTests {
    private func foundationBinary<T: Encodable>(_ value: T) throws -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return try encoder.encode(value)
    }

    private func foundationXML<T: Encodable>(_ value: T) throws -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        return try encoder.encode(value)
    }

    private func ours<T: Encodable>(_ value: T, _ format: PlistFormat) throws -> Data {
        var encoder = PlistEncoder()
        encoder.outputFormat = format
        return try encoder.encode(value)
    }

    private func signs<F: FloatingPoint>(_ values: [F]) -> [FloatingPointSign] { values.map(\.sign) }

    /// 1. `0.0` and `-0.0`: Foundation's binary writer keeps the first zero; we keep both.
    @Test(arguments: [[0.0, -0.0], [-0.0, 0.0], [-0.0, 1, 0.0, -0.0]])
    func zerosKeepTheirSigns(value: [Double]) throws {
        let theirs = try foundationBinary(value)
        let foundationRead = try PropertyListDecoder().decode([Double].self, from: theirs)
        #expect(foundationRead.filter { $0 == 0 }.allSatisfy { $0.sign == value[0].sign },
                "Foundation merges zeros: every zero reads back with the first zero's sign")
        #expect(signs(foundationRead) != signs(value), "so Foundation loses a sign")

        let mine = try ours(value, .binary)
        #expect(signs(try PlistDecoder().decode([Double].self, from: mine)) == signs(value))
        #expect(signs(try PropertyListDecoder().decode([Double].self, from: mine)) == signs(value))
        #expect(try PlistValue(parsing: mine) == .array(value.map { .real($0) }))
        let theirTrailer = try #require(BinaryTrailer(theirs)), myTrailer = try #require(BinaryTrailer(mine))
        #expect(myTrailer.objectCount == theirTrailer.objectCount + 1, "one more object: the other zero")

        // XML has no sharing: both keep the signs and the bytes are equal.
        let xml = try ours(value, .xml)
        #expect(xml == (try foundationXML(value)))
        #expect(signs(try PlistDecoder().decode([Double].self, from: xml)) == signs(value))
    }

    /// 1, for `Float`: the same merge of `Float(0)` and `Float(-0.0)` in Foundation; we keep both.
    @Test func floatZerosKeepTheirSigns() throws {
        let value: [Float] = [0.0, -0.0]
        let foundationRead = try PropertyListDecoder().decode([Float].self, from: try foundationBinary(value))
        #expect(signs(foundationRead) == [.plus, .plus], "Foundation reads [0.0, -0.0] as two +0.0")
        let mine = try ours(value, .binary)
        #expect(signs(try PlistDecoder().decode([Float].self, from: mine)) == [.plus, .minus])
        #expect(signs(try PropertyListDecoder().decode([Float].self, from: mine)) == [.plus, .minus])
    }

    /// 2. `"\u{E9}"` and `"e\u{301}"`: Foundation's binary writer writes one string; we write both.
    @Test(arguments: [["\u{E9}", "e\u{301}"], ["e\u{301}", "\u{E9}"], ["A\u{30A}", "\u{C5}", "\u{212B}"]])
    func canonicallyEquivalentStringsStayApart(value: [String]) throws {
        func scalars(_ strings: [String]) -> [[UInt32]] { strings.map { $0.unicodeScalars.map(\.value) } }
        let theirs = try foundationBinary(value)
        let foundationRead = try PropertyListDecoder().decode([String].self, from: theirs)
        #expect(Set(scalars(foundationRead)).count == 1, "Foundation merges them: \(scalars(foundationRead))")
        #expect(scalars(foundationRead).allSatisfy { $0 == scalars([value[0]])[0] }, "the first one wins")
        #expect(try #require(BinaryTrailer(theirs)).objectCount == 2, "the array and one string")

        let mine = try ours(value, .binary)
        #expect(scalars(try PlistDecoder().decode([String].self, from: mine)) == scalars(value))
        #expect(scalars(try PropertyListDecoder().decode([String].self, from: mine)) == scalars(value))
        #expect(try #require(BinaryTrailer(mine)).objectCount == UInt64(1 + value.count))

        let xml = try ours(value, .xml)
        #expect(xml == (try foundationXML(value)))
        #expect(scalars(try PlistDecoder().decode([String].self, from: xml)) == scalars(value))
    }

    /// 3. `[Int: String]`: Foundation's binary bytes follow each dictionary's hash order; ours are sorted.
    @Test func nonStringKeysAreSorted() throws {
        let seed = TestSeed.make()
        print("seed: \(seed) (nonStringKeysAreSorted; replay with \(TestSeed.variable)=\(seed))")
        var rng = SeededGenerator(seed: seed)
        let keys = (0..<64).map { _ in Int.random(in: -1_000_000...1_000_000, using: &rng) }
        // Equal dictionaries with different histories (insertion order, capacity).
        var variants: [[Int: String]] = []
        for capacity in [0, 64, 300, 5000] {
            for order in [keys, keys.reversed(), keys.shuffled(using: &rng)] {
                var d = [Int: String](minimumCapacity: capacity)
                for key in order { d[key] = "v\(key)" }
                variants.append(d)
            }
        }
        let expected = variants[0]
        #expect(variants.allSatisfy { $0 == expected })

        let foundationBytes = Set(try variants.map { try foundationBinary($0) })
        #expect(foundationBytes.count > 1, "Foundation's bytes follow iteration order: \(foundationBytes.count) distinct")
        for bytes in foundationBytes {
            #expect(try PropertyListDecoder().decode([Int: String].self, from: bytes) == expected)
        }

        let myBytes = Set(try variants.map { try ours($0, .binary) })
        #expect(myBytes.count == 1, "ours are the same for equal dictionaries")
        let mine = try #require(myBytes.first)
        #expect(try PlistDecoder().decode([Int: String].self, from: mine) == expected)
        #expect(try PropertyListDecoder().decode([Int: String].self, from: mine) == expected)
        let writtenKeys = try #require(try PlistValue(parsing: mine).dictionaryValue).keys
        let asInts = writtenKeys.compactMap { Int($0) }
        #expect(asInts == asInts.sorted() || writtenKeys == writtenKeys.sorted(),
                "keys written in sorted order (numeric or textual): \(writtenKeys.prefix(8))")

        // XML sorts keys in both writers, so there the bytes are equal.
        for variant in variants.prefix(3) {
            #expect(try ours(variant, .xml) == (try foundationXML(variant)))
        }
    }

    /// 4. `[nil, "$null"]`: two objects from Foundation and from `PlistEncoder`; one after a value tree.
    @Test func nullMarkerNextToTheStringNull() throws {
        let value: [String?] = [nil, "$null", "x"]
        let theirs = try foundationBinary(value)
        let mine = try ours(value, .binary)
        #expect(mine == theirs, "PlistEncoder writes Foundation's bytes")
        #expect(try #require(BinaryTrailer(theirs)).objectCount == 4, "the array, the nil marker, \"$null\" and \"x\"")

        let tree = try PlistValue(parsing: theirs)
        #expect(tree == .array([.string("$null"), .string("$null"), .string("x")]))
        let rewritten = try tree.serialized(as: .binary)
        #expect(rewritten != theirs, "parse then write cannot tell the two objects apart")
        #expect(try #require(BinaryTrailer(rewritten)).objectCount == 3)
        #expect(try PlistValue(parsing: rewritten) == tree, "the values are the same")
        #expect(try PropertyListDecoder().decode([String?].self, from: rewritten)
            == (try PropertyListDecoder().decode([String?].self, from: theirs)))
    }
}
