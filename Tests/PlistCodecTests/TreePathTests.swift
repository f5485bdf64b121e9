import Foundation
import Testing
import TestSupport
@testable import PlistCodec

/// Issue 17: `PlistValue(parsing:)` reads binary files with `BinaryPlistTreeBuilder` after a
/// checking walk, and `serialized(as: .xml)` writes with `ValueXMLWriter`. Both are checked here
/// against the paths they replaced, which are kept: the walk with `BinaryPlistTreeSink` (the tree
/// reader before), and `XMLPlistWriter` over a `PlistNode` (the streaming converter's writer).
@Suite("Value-tree fast paths agree with the paths they replaced")
struct TreePathTests {
    // MARK: XML writing

    @Test func xmlWriterMatchesTheNodeWriterOnRandomTrees() throws {
        let seed = TestSeed.make()
        print("xmlWriterMatchesTheNodeWriterOnRandomTrees seed: 0x\(String(seed, radix: 16))")
        var random = RandomTree(seed: seed)
        for round in 0..<(200 * TestSeed.scale) {
            // Half the rounds: many dictionaries over a few key lists, as records give.
            let value = round % 2 == 0 ? random.value(depth: 0) : random.records()
            for mode in [PlistWriteMode.foundation, .coreFoundation] {
                let new = try ValueXMLWriter.write(value, mode: mode)
                let old = try XMLPlistWriter(mode: mode).write(PlistNode(value))
                #expect(new == old, "round \(round) \(mode), seed 0x\(String(seed, radix: 16)): \(value)")
            }
        }
    }

    @Test func xmlWriterRefusesTheDatesTheNodeWriterRefuses() {
        for t in [Double.infinity, -.infinity, .nan, 1e15, -1e14, -63_200_000_000_000] {
            let value = PlistValue.array([.date(Date(timeIntervalSinceReferenceDate: t))])
            for mode in [PlistWriteMode.foundation, .coreFoundation] {
                let new = Result { try ValueXMLWriter.write(value, mode: mode) }
                let old = Result { try XMLPlistWriter(mode: mode).write(PlistNode(value)) }
                #expect(new.error == old.error && new.error != nil, "\(t) \(mode): \(new) against \(old)")
            }
        }
    }

    /// Keys that differ only in normalization are different keys: a list remembered for one must
    /// not be used for the other (their bytes differ, and CoreFoundation's order may too).
    @Test func keyListsMatchByExactScalars() throws {
        let composed = PlistValue.dictionary(["\u{E9}": .int(1), "z": .int(2), "\u{FFFD}": .int(3), "\u{1F600}": .int(4)])
        let decomposed = PlistValue.dictionary(["e\u{301}": .int(1), "z": .int(2), "\u{FFFD}": .int(3), "\u{1F600}": .int(4)])
        for mode in [PlistWriteMode.foundation, .coreFoundation] {
            let both = try ValueXMLWriter.write(.array([composed, decomposed, composed]), mode: mode)
            let alone = try [composed, decomposed].map { try ValueXMLWriter.write(.array([$0]), mode: mode) }
            let text = String(decoding: both, as: UTF8.self)
            for part in alone {
                let body = String(decoding: part, as: UTF8.self).components(separatedBy: "<array>\n")[1].components(separatedBy: "</array>")[0]
                #expect(text.contains(body), "\(mode): \(body) is not in \(text)")
            }
            // Read back (in written order), each dictionary writes alone as the original did.
            let read = try #require(try PlistValue(parsing: both).arrayValue)
            #expect(try read.map { try ValueXMLWriter.write(.array([$0]), mode: mode) } == [alone[0], alone[1], alone[0]])
        }
    }

    /// Escaping goes eight bytes at a time until a word holds `&`, `<` or `>`: strings of every
    /// length, with those at every position.
    @Test func escapingEscapesExactlyTheThreeMarkupCharacters() throws {
        let seed = TestSeed.make()
        print("escapingEscapesExactlyTheThreeMarkupCharacters seed: 0x\(String(seed, radix: 16))")
        var rng = SeededGenerator(seed: seed)
        let pieces = ["a", "bcdefgh", "&", "<", ">", "=", ";", "\u{E9}", "\u{6F22}", "\u{1F680}", "\u{0}", "\t", "&amp;", "12345678"]
        for _ in 0..<(2000 * TestSeed.scale) {
            let s = (0..<rng.int(in: 0...12)).map { _ in rng.pick(pieces) }.joined()
            let expected = s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
            let out = ByteWriter()
            try XMLPlistWriter(mode: .foundation).writeEscaped(s, to: out)
            #expect(XMLEscaping.bytes(s) == Array(expected.utf8), "\(s.debugDescription), seed 0x\(String(seed, radix: 16))")
            #expect([UInt8](out.data()) == Array(expected.utf8), "\(s.debugDescription), seed 0x\(String(seed, radix: 16))")
        }
    }

    @Test func realTextMatchesDoubleDescription() {
        let seed = TestSeed.make()
        print("realTextMatchesDoubleDescription seed: 0x\(String(seed, radix: 16))")
        var values = RandomValues(seed: seed, forXML: true)
        let specials: [Double] = [0.0, -0.0, 1, -1, 1e16, 1e-7, .nan, -.nan, .signalingNaN, Double(bitPattern: 0xFFF3_C000_0000_0000),
                                  .infinity, -.infinity, .ulpOfOne]
        for d in specials + (0..<3000).map({ _ in values.double() }) {
            let out = ByteWriter()
            XMLRealText.writeFoundation(d, to: out)
            #expect(String(decoding: out.data(), as: UTF8.self) == XMLPlistWriter.realText(d, mode: .foundation), "\(d), seed 0x\(String(seed, radix: 16))")
        }
    }

    @Test func dateTextMatchesItsCalendarFieldsInEveryYearWidth() throws {
        let seed = TestSeed.make()
        print("dateTextMatchesItsCalendarFieldsInEveryYearWidth seed: 0x\(String(seed, radix: 16))")
        var rng = SeededGenerator(seed: seed)
        let edges: [Double] = [0, -0.5, 252_423_993_600 - 978_307_200, 253_402_300_799 - 978_307_200,
                               253_402_300_800 - 978_307_200, 9.99e13, -62_167_219_200 - 978_307_200]
        for t in edges + (0..<2000).map({ _ in Double.random(in: -7e10...1e14, using: &rng) }) {
            for julian in [true, false] {
                let out = ByteWriter()
                let written = XMLDateFormat.write(secondsSinceReferenceDate: t, julianBeforeGregorian: julian, to: out)
                #expect(written ? String(decoding: out.data(), as: UTF8.self) == Self.referenceDateText(t, julian: julian)
                                : Self.referenceDateText(t, julian: julian) == nil, "\(t), seed 0x\(String(seed, radix: 16))")
            }
        }
    }

    /// The date text as the writer spelled it before it wrote into raw space.
    static func referenceDateText(_ t: Double, julian: Bool) -> String? {
        let total = Int64(t.rounded(.down)) + XMLDateFormat.referenceOffset
        let days = total >= 0 ? total / 86_400 : -((-total + 86_399) / 86_400)
        let secs = total - days * 86_400
        let jdn = days + XMLDateFormat.unixEpochJDN
        let (y, m, d) = (julian && jdn < XMLDateFormat.gregorianStartJDN) ? XMLDateFormat.julian(jdn) : XMLDateFormat.gregorian(days)
        guard y >= 0 else { return nil }
        func pad(_ v: Int64, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(v).count)) + String(v) }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secs / 3600, 2)):\(pad(secs / 60 % 60, 2)):\(pad(secs % 60, 2))Z"
    }

    // MARK: Binary reading

    @Test func binaryReaderMatchesTheTreeSinkOnRandomAndCorruptedFiles() throws {
        let seed = TestSeed.make()
        print("binaryReaderMatchesTheTreeSinkOnRandomAndCorruptedFiles seed: 0x\(String(seed, radix: 16))")
        var random = RandomTree(seed: seed)
        for round in 0..<(300 * TestSeed.scale) {
            let value = round % 3 == 0 ? random.records() : random.value(depth: 0)
            var bytes = [UInt8](try value.serialized(as: .binary, mode: round % 2 == 0 ? .foundation : .coreFoundation))
            if round % 2 == 1 {
                for _ in 0..<random.rng.int(in: 1...3) { random.corruptBinary(&bytes) }
            }
            let options = PlistReadOptions(maxDepth: random.rng.pick([2, 3, 512]), strict: random.rng.chance(0.3))
            expectSameRead(Data(bytes), options, "round \(round), seed 0x\(String(seed, radix: 16))")
        }
    }

    /// What random files rarely hold: shared containers, repeated keys (one object twice, two equal
    /// objects, ASCII and UTF-16 spellings), Latin-1 bytes in an ASCII string, surrogates alone and
    /// in pairs, wide and narrow integers, floats, UIDs.
    @Test func binaryReaderMatchesTheTreeSinkOnHandMadeFiles() {
        let key = Self.ascii("k"), other = Self.ascii("kk"), keyUTF16: [UInt8] = [0x61, 0x00, 0x6B]
        let files: [(String, [[UInt8]], Int)] = [
            // 0: [1, 1] where 1 = [2]; 2 = "k"
            ("shared array", [[0xA2, 1, 1], [0xA1, 2], key], 0),
            ("one key object twice", [[0xD2, 1, 1, 2, 3], key, [0x10, 1], [0x10, 2]], 0),
            ("two equal key objects", [[0xD3, 1, 2, 3, 4, 5, 6], key, key, other, [0x10, 1], [0x10, 2], [0x10, 3]], 0),
            ("ASCII and UTF-16 spellings", [[0xD2, 1, 2, 3, 4], key, keyUTF16, [0x10, 1], [0x10, 2]], 0),
            ("Latin-1", [[0xA2, 1, 2], [0x54, 0x63, 0x61, 0x66, 0xE9], Self.ascii("plain")], 0),
            ("lone surrogates", [[0xA3, 1, 2, 3], [0x62, 0xD8, 0x3D, 0x00, 0x41], [0x61, 0xDC, 0x00],
                                 [0x63, 0xD8, 0x3D, 0xDE, 0x00, 0xD8, 0x3D]], 0),
            ("pairs and BMP", [[0xA1, 1], [0x65, 0xD8, 0x3D, 0xDE, 0x80, 0x00, 0xE9, 0x6F, 0x22, 0xFF, 0xFF]], 0),
            ("numbers", [[0xA6, 1, 2, 3, 4, 5, 6], [0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE],
                         [0x14] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8),
                         [0x12, 0xFF, 0xFF, 0xFF, 0xFF], [0x22, 0x3F, 0xC0, 0x00, 0x00],
                         [0x23, 0x40, 0x09, 0x21, 0xFB, 0x54, 0x44, 0x2D, 0x18], [0x83, 0x12, 0x34, 0x56, 0x78]], 0),
            ("scalars", [[0xA5, 1, 2, 3, 4, 5], [0x08], [0x09], [0x33, 0x41, 0xC0, 0, 0, 0, 0, 0, 0], [0x42, 1, 2], [0x50]], 0),
            ("dictionary shared by two arrays", [[0xA2, 1, 2], [0xA1, 3], [0xA1, 3], [0xD1, 4, 5], key, [0x10, 9]], 0),
        ]
        for (name, objects, top) in files {
            let data = Self.bplist(objects, top: top)
            for options in [PlistReadOptions(), PlistReadOptions(strict: true), PlistReadOptions(maxDepth: 1)] {
                expectSameRead(data, options, "\(name), \(options)")
            }
        }
    }

    @Test func utf16DecodingMatchesTheStandardLibrary() {
        let seed = TestSeed.make()
        print("utf16DecodingMatchesTheStandardLibrary seed: 0x\(String(seed, radix: 16))")
        var rng = SeededGenerator(seed: seed)
        let units: [UInt16] = [0x0, 0x41, 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x6F22, 0xD7FF, 0xD800, 0xD83D, 0xDBFF,
                               0xDC00, 0xDE00, 0xDFFF, 0xE000, 0xFFFD, 0xFFFF]
        for _ in 0..<(3000 * TestSeed.scale) {
            let string = (0..<rng.int(in: 0...9)).map { _ in rng.pick(units) }
            let bigEndian = string.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            let ours = bigEndian.withUnsafeBytes { BinaryStringText.utf16BigEndian($0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, count: string.count) }
            let theirs = String(decoding: string, as: UTF16.self)
            #expect(Array(ours.unicodeScalars) == Array(theirs.unicodeScalars), "\(string), seed 0x\(String(seed, radix: 16))")
        }
    }

    // MARK: Helpers

    /// The tree reader before issue 17: one walk with `BinaryPlistTreeSink`.
    static func readThroughTreeSink(_ data: Data, _ options: PlistReadOptions) throws -> PlistValue {
        let doc: BinaryPlistDocument
        do {
            doc = try BinaryPlistDocument(data, strict: options.strict)
        } catch let error as PlistError {
            return try BinaryPlistReader.textFallback(data, options: options, after: error)
        }
        return try doc.walk(options, into: BinaryPlistTreeSink(objectCount: doc.numObjects)).object(doc.topObject)
    }

    func expectSameRead(_ data: Data, _ options: PlistReadOptions, _ what: String) {
        let new = Result { try PlistValue(parsing: data, options: options) }
        let old = Result { try Self.readThroughTreeSink(data, options) }
        switch (new, old) {
        case (.success(let a), .success(let b)) where a == b: break
        case (.failure(let a), .failure(let b)) where a as? PlistError == b as? PlistError: break
        default: Issue.record("\(what): the builder gave \(new), the tree sink \(old)")
        }
    }

    static func ascii(_ s: String) -> [UInt8] { [0x50 | UInt8(s.utf8.count)] + Array(s.utf8) }

    /// A `bplist00` file of `objects` (at most 255 bytes in all), with 1-byte offsets and references.
    static func bplist(_ objects: [[UInt8]], top: Int) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        for field in [objects.count, top, table] {
            bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(field) >> (8 * UInt64($0))) }
        }
        return Data(bytes)
    }
}

extension RandomTree {
    /// An array of dictionaries over a few key lists (some keys differing only in normalization),
    /// with nested records, as a Codable array of records gives.
    mutating func records() -> PlistValue {
        let lists: [[String]] = [["id", "name", "note", "score"], ["x", "y"], ["caf\u{E9}", "cafe\u{301}", "<&>"],
                                 (0..<rng.int(in: 0...5)).map { _ in values.string() }]
        var items: [PlistValue] = []
        for _ in 0..<rng.int(in: 0...8) {
            var dictionary = PlistDictionary()
            for key in rng.pick(lists) {
                dictionary[key] = rng.chance(0.2) ? .dictionary(["x": scalar(), "y": scalar()]) : scalar()
            }
            items.append(.dictionary(dictionary))
        }
        return .array(items)
    }
}

extension Result {
    var error: PlistError? {
        if case .failure(let error) = self { return error as? PlistError }
        return nil
    }
}
