import Foundation
import PlistCodec
import TestSupport
import Testing

/// The sinks of each format's one scanner agree: for fixtures, random documents and corrupted copies
/// of them, the tree reader (`PlistValue(parsing:)`), the validator (`PlistStreaming.validate`) and
/// the converter (`writeXML(fromBinary:)`, `writeBinary(fromXML:)`) accept exactly the same bytes,
/// fail with the same `PlistError`, and the converter's output reads back as the tree.
@Suite("Scanner sinks agree")
struct SinkAgreementTests {
    static let fixtures = (Fixtures.list("PlistCodec/apple/cfpropertylist-ruby") + Fixtures.list("PlistCodec/apple/cpython")
        + Fixtures.list("PlistCodec/apple/swift-foundation") + Fixtures.list("PlistCodec/recorded")
        + Fixtures.list("PlistCodec/tolerated") + Fixtures.list("PlistCodec/invalid") + Fixtures.list("Apps/plist/inputs"))

    /// Two dictionaries whose key lists differ only in normalization ("\u{E9}" and "e\u{301}"):
    /// CoreFoundation's order (by UTF-16) puts "f" first in one and last in the other. The converter
    /// remembers recent key lists; it must not take the second for the first, as `String`'s ==
    /// (canonical equivalence) would.
    @Test func keyListsThatDifferOnlyInNormalizationKeepTheirOwnOrder() throws {
        let tree = PlistValue.array([
            .dictionary(PlistDictionary([("\u{E9}", .int(1)), ("f", .int(2))])),
            .dictionary(PlistDictionary([("e\u{301}", .int(3)), ("f", .int(4))])),
        ])
        let binary = try tree.serialized(as: .binary, mode: .coreFoundation)
        var streamed = Data()
        try PlistStreaming.writeXML(fromBinary: binary, mode: .coreFoundation) { streamed += $0 }
        #expect(streamed == (try tree.serialized(as: .xml, mode: .coreFoundation)))
        // By bytes (a `String` search would match either spelling): in the second dictionary the
        // decomposed key comes first.
        let second = try #require(streamed.range(of: Data("<integer>1</integer>".utf8))).upperBound
        let decomposed = try #require(streamed.range(of: Data("<key>e\u{301}</key>".utf8), in: second..<streamed.endIndex))
        let f = try #require(streamed.range(of: Data("<key>f</key>".utf8), in: second..<streamed.endIndex))
        #expect(decomposed.lowerBound < f.lowerBound, "the decomposed key sorts before f by UTF-16")
    }

    @Test func thereAreFixturesOfBothFormats() throws {
        let formats = try Self.fixtures.map { PlistFormat.detect(try Fixtures.data($0)) }
        #expect(formats.filter { $0 == .binary }.count >= 30)
        #expect(formats.filter { $0 == .xml }.count >= 10)
    }

    @Test(arguments: fixtures)
    func fixtureReadsAlikeThroughEverySink(_ path: String) throws {
        let data = try Fixtures.data(path)
        for options in [PlistReadOptions(), PlistReadOptions(strict: true), PlistReadOptions(maxDepth: 2)] {
            expectSinksAgree(data, options: options, "\(path), \(options)")
        }
    }

    @Test func randomDocumentsReadAlikeThroughEverySink() throws {
        let seed = TestSeed.make()
        print("randomDocumentsReadAlikeThroughEverySink seed: 0x\(String(seed, radix: 16))")
        var random = RandomTree(seed: seed)
        for round in 0..<(60 * TestSeed.scale) {
            let value = random.value(depth: 0)
            for format in [PlistFormat.binary, .xml] {
                let data = try value.serialized(as: format, mode: round % 2 == 0 ? .foundation : .coreFoundation)
                expectSinksAgree(data, options: PlistReadOptions(), "round \(round) \(format), seed 0x\(String(seed, radix: 16))")
            }
        }
    }

    /// Corrupted bytes: flipped markers, counts, references, offsets and trailer fields in binary
    /// files; deleted, repeated and replaced bytes in XML. Most copies fail, in every kind of way
    /// (cycles, shared containers, depth, offsets, tags, entities), and the sinks must fail alike.
    @Test func corruptedDocumentsFailAlikeThroughEverySink() throws {
        let seed = TestSeed.make()
        print("corruptedDocumentsFailAlikeThroughEverySink seed: 0x\(String(seed, radix: 16))")
        var random = RandomTree(seed: seed)
        var failures = 0, total = 0
        for round in 0..<(300 * TestSeed.scale) {
            let value = random.value(depth: 0)
            for format in [PlistFormat.binary, .xml] {
                var bytes = [UInt8](try value.serialized(as: format, mode: round % 2 == 0 ? .foundation : .coreFoundation))
                for _ in 0..<random.rng.int(in: 1...3) {
                    if format == .binary { random.corruptBinary(&bytes) } else { random.corruptText(&bytes) }
                }
                let options = PlistReadOptions(maxDepth: random.rng.pick([2, 3, 512]), strict: random.rng.chance(0.3))
                let data = Data(bytes)
                total += 1
                if (try? PlistValue(parsing: data, options: options)) == nil { failures += 1 }
                expectSinksAgree(data, options: options, "round \(round) \(format), seed 0x\(String(seed, radix: 16))")
            }
        }
        // Most corrupted copies must fail, or the test says nothing about errors.
        #expect(failures * 2 > total, "only \(failures) of \(total) corrupted documents failed")
    }

    /// Reads `data` through every entry point and records where they disagree.
    func expectSinksAgree(_ data: Data, options: PlistReadOptions, _ what: String) {
        let tree = Result { try PlistValue(parsing: data, options: options) }
        let validated = Result { try PlistStreaming.validate(data, options: options) }
        switch (tree, validated) {
        case (.success, .success): break
        case (.failure(let a), .failure(let b)) where a as? PlistError == b as? PlistError: break
        default: Issue.record("\(what): the reader gave \(tree), the validator \(validated)")
        }
        for mode in [PlistWriteMode.foundation, .coreFoundation] {
            switch PlistFormat.detect(data) {
            case .binary:
                let expected = Result { try tree.get().serialized(as: .xml, mode: mode) }
                let streamed = Result { () throws -> Data in
                    var out = Data()
                    try PlistStreaming.writeXML(fromBinary: data, mode: mode, options: options, chunkSize: 1) { out += $0 }
                    return out
                }
                expectSame(streamed, expected, readBack: tree, "\(what), binary to XML, \(mode)")
            case .xml:
                let expected = Result { try tree.get().serialized(as: .binary, mode: mode) }
                let streamed = Result { () throws -> Data in
                    var out = Data()
                    try PlistStreaming.writeBinary(fromXML: data, mode: mode, options: options, chunkSize: 1) { out += $0 }
                    return out
                }
                expectSame(streamed, expected, readBack: tree, "\(what), XML to binary, \(mode)")
            case .openStep:
                break
            }
        }
    }

    /// The streamed bytes are the tree's bytes (or the same error), and they read back as the tree.
    func expectSame(_ streamed: Result<Data, any Error>, _ expected: Result<Data, any Error>,
                    readBack tree: Result<PlistValue, any Error>, _ what: String) {
        switch (streamed, expected) {
        case (.success(let a), .success(let b)):
            if let difference = Fixtures.firstDifference(a, b) { Issue.record("\(what): \(difference)") }
            // Binary keeps everything XML says; XML drops what binary alone holds (date fractions,
            // widths), so that direction is compared through the tree's own XML.
            guard case .success(let value) = tree, let back = try? PlistValue(parsing: a) else {
                Issue.record("\(what): the streamed output does not read back")
                return
            }
            let reference = PlistFormat.detect(a) == .binary ? value : (try? PlistValue(parsing: b))
            #expect(back == reference, "\(what): the streamed output reads back differently")
        case (.failure(let a), .failure(let b)) where a as? PlistError == b as? PlistError:
            break
        default:
            Issue.record("\(what): the stream gave \(streamed), the tree path \(expected)")
        }
    }
}

/// Random property-list trees and random damage to their bytes, from one seed.
struct RandomTree {
    var values: RandomValues
    var rng: SeededGenerator {
        get { values.rng }
        set { values.rng = newValue }
    }

    init(seed: UInt64) {
        values = RandomValues(seed: seed, forXML: true)
        values.bigDataChance = 0
    }

    mutating func scalar() -> PlistValue {
        switch rng.int(in: 0...9) {
        case 0, 1: return .string(values.string())
        case 2: return .int(Int(values.integer(Int64.self)))
        case 3: return .integer(PlistInteger(values.integer(UInt64.self)))
        case 4: return .real(values.double())
        case 5: return .float(values.float())
        case 6: return .bool(rng.chance(0.5))
        case 7: return .date(values.date())
        case 8: return .data(values.data())
        default: return .uid(UInt64(values.integer(UInt32.self)))
        }
    }

    mutating func value(depth: Int) -> PlistValue {
        guard depth < 5 else { return scalar() }
        switch rng.int(in: 0...5) {
        case 0, 1:
            return .array((0..<rng.count(upTo: 12)).map { _ in value(depth: depth + 1) })
        case 2, 3:
            var dictionary = PlistDictionary()
            for _ in 0..<rng.count(upTo: 12) { dictionary[values.string()] = value(depth: depth + 1) }
            return .dictionary(dictionary)
        default:
            return depth == 0 ? .array([scalar()]) : scalar()
        }
    }

    /// Overwrites one byte of a binary file: anywhere, or in the trailer's sizes and counts, with a
    /// marker, a small reference or random bits.
    mutating func corruptBinary(_ bytes: inout [UInt8]) {
        guard bytes.count > 8 else { return }
        let position = rng.chance(0.2) ? bytes.count - 32 + rng.int(in: 0...31) : rng.int(in: 8...(bytes.count - 1))
        bytes[position] = rng.pick([0x00, 0x01, 0x02, 0x03, 0x0F, 0xFF, 0xA1, 0xA2, 0xAF, 0xD1, 0xD2, 0x5F, 0x6F, 0x4F,
                                    0x13, 0x14, 0x33, 0x23, 0x80, 0x88, UInt8(truncatingIfNeeded: rng.next())])
    }

    /// Damages XML text: replaces a byte with markup or a stray byte, deletes or repeats a run, or
    /// cuts the text short.
    mutating func corruptText(_ bytes: inout [UInt8]) {
        guard bytes.count > 2 else { return }
        let position = rng.int(in: 0...(bytes.count - 1))
        switch rng.int(in: 0...3) {
        case 0:
            bytes[position] = rng.pick(Array("<>/&;\"= ax0-".utf8) + [0x00, 0xFF, 0xC3, 0x80, 0x0D])
        case 1:
            bytes.removeSubrange(position..<min(bytes.count, position + rng.int(in: 1...12)))
        case 2:
            let run = bytes[position..<min(bytes.count, position + rng.int(in: 1...40))]
            bytes.insert(contentsOf: run, at: rng.int(in: 0...bytes.count))
        default:
            bytes.removeSubrange(position...)
        }
    }
}
