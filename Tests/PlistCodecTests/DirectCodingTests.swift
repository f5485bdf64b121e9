import Foundation
import PlistCodec
import Testing
import TestSupport

// The Codable paths read and write bytes directly: the encoder builds a flat arena (no tree of
// boxed containers) and the decoder reads the binary object table, or a flat index of the XML
// elements, in place. These tests cover what is new on those paths: containers filled out of order,
// keys encoded twice, super-encoders in the middle of an array, and files whose keys repeat, differ
// only in normalization or are not ASCII. The decoder's referee is the tree path
// (`decode(_:from: PlistValue)`), which read every file before.

/// A hand-written `encode(to:)` that uses containers in an order the simple cases never do.
private struct Interleaved: Codable, Equatable {
    var a = 1, b = "two", c = [3, 4], d = Date(timeIntervalSinceReferenceDate: 12.5), e = Data([5, 6, 7])

    enum Keys: String, CodingKey { case a, b, c, d, e, nested, list, again }
    enum Inner: String, CodingKey { case x, y }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        a = try container.decode(Int.self, forKey: .a)
        b = try container.decode(String.self, forKey: .b)
        c = try container.decode([Int].self, forKey: .c)
        d = try container.decode(Date.self, forKey: .d)
        e = try container.decode(Data.self, forKey: .e)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var nested = container.nestedContainer(keyedBy: Inner.self, forKey: .nested)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        try container.encode(a, forKey: .a)
        try nested.encode("late", forKey: .y)          // into a container opened before `a`
        try list.encode(b)
        try container.encode(b, forKey: .b)
        try container.encode(0, forKey: .c)
        try container.encode(c, forKey: .c)             // a key encoded twice: first place, last value
        var reopened = container.nestedContainer(keyedBy: Inner.self, forKey: .nested)
        try reopened.encode(true, forKey: .x)           // the same nested dictionary, reopened
        try list.encode(d)
        try container.encode(d, forKey: .d)
        try container.encode(e, forKey: .e)
        try container.encode(e, forKey: .again)         // equal data: one object in binary
        var inner = list.nestedUnkeyedContainer()
        try inner.encodeNil()
        try inner.encode(b)
    }
}

/// An array whose middle element comes from a super-encoder, released after later elements.
private struct SuperInMiddle: Encodable {
    func encode(to encoder: any Encoder) throws {
        var list = encoder.unkeyedContainer()
        try list.encode("first")
        let sup = list.superEncoder()
        try list.encode("third")
        try list.encode(true)
        var inside = sup.container(keyedBy: Interleaved.Keys.self)
        try inside.encode(true, forKey: .a)             // its own sharing table: a second `true`
        try inside.encode("first", forKey: .b)          // and a second "first"
    }
}

/// Decodes `data` as `T` through the direct path and through a `PlistValue` tree, and describes
/// each outcome (value, or error case with its path and message).
private func bothPaths<T: Decodable>(_ type: T.Type, _ data: Data) -> (direct: String, tree: String) {
    func describe(_ body: () throws -> T) -> String {
        do {
            let value = try body()
            // A `Dictionary` prints in hash order: compare its entries sorted.
            if let dict = value as? [String: Any] {
                return "value " + dict.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            }
            return "value \(DecodeOutcome.exactDescription(value))"
        } catch let error as DecodingError {
            switch error {
            case .typeMismatch(_, let c): return "typeMismatch \(c.codingPath.map(\.stringValue)) \(c.debugDescription)"
            case .valueNotFound(_, let c): return "valueNotFound \(c.codingPath.map(\.stringValue)) \(c.debugDescription)"
            case .keyNotFound(let k, let c): return "keyNotFound \(k.stringValue) \(c.codingPath.map(\.stringValue)) \(c.debugDescription)"
            case .dataCorrupted(let c):
                return "dataCorrupted \(c.codingPath.map(\.stringValue)) \(c.debugDescription) \(String(describing: c.underlyingError))"
            @unknown default: return "unknown \(error)"
            }
        } catch { return "other \(error)" }
    }
    let direct = describe { try PlistDecoder().decode(T.self, from: data) }
    let tree = describe {
        let value: PlistValue
        do { value = try PlistValue(parsing: data) } catch let error as PlistError {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not a valid property list: \(error)", underlyingError: error))
        }
        return try PlistDecoder().decode(T.self, from: value)
    }
    return (direct, tree)
}

private func directXML(_ body: String) -> Data {
    Data(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n" + body + "\n</plist>\n").utf8)
}

@Suite("Direct Codable paths: arena encoder, in-place decoder")
struct DirectCodingTests {
    static let formats: [PlistFormat] = [.binary, .xml]

    @Test(arguments: formats)
    func containersFilledOutOfOrder(format: PlistFormat) throws {
        let check = DifferentialCheck(format: format)
        for failure in check.failures(for: [Interleaved(), Interleaved()], label: "direct-interleaved") {
            Issue.record("\(format): \(failure)")
        }
        let value = try PlistEncoder().encodeToValue(Interleaved())
        let root = try #require(value.dictionaryValue)
        #expect(root.keys == ["nested", "list", "a", "b", "c", "d", "e", "again"])
        #expect(root["nested"] == .dictionary(["y": .string("late"), "x": .bool(true)]))
        #expect(root["c"] == .array([.int(3), .int(4)]))
    }

    @Test(arguments: formats)
    func superEncoderInTheMiddleOfAnArray(format: PlistFormat) throws {
        var ours = PlistEncoder()
        ours.outputFormat = format
        let theirs = PropertyListEncoder()
        theirs.outputFormat = format == .xml ? .xml : .binary
        #expect(try ours.encode(SuperInMiddle()) == theirs.encode(SuperInMiddle()))
        let value = try PlistEncoder().encodeToValue(SuperInMiddle())
        #expect(value.arrayValue?.count == 4)
        #expect(value.arrayValue?[1] == .dictionary(["a": .bool(true), "b": .string("first")]))
    }

    /// Strings and data repeated across records are written once in binary; keys and values share.
    @Test func uniquedStringsAndKeys() throws {
        struct Row: Codable { var name: String; var tag: String; var blob: Data }
        let rows = (0..<300).map { Row(name: "name", tag: $0 % 2 == 0 ? "tag" : "name", blob: Data([UInt8($0 % 3)])) }
        let check = DifferentialCheck(format: .binary)
        for failure in check.failures(for: rows, label: "direct-uniqued") { Issue.record("\(failure)") }
        let trailer = try #require(BinaryTrailer(try PlistEncoder().encode(rows)))
        // The array, 300 dictionaries, the keys "name", "tag" and "blob" (the values "name" and "tag"
        // are the keys' objects) and three distinct data objects.
        #expect(trailer.objectCount == 1 + 300 + 3 + 3)
    }

    /// Dictionaries with more keys than the small-dictionary paths: `[String: Int]` decoded in the
    /// order `Dictionary` asks, from files whose keys are in another order.
    @Test(arguments: [20, 100, 1000])
    func largeDictionaries(count: Int) throws {
        var dict = PlistDictionary()
        var rng = SeededGenerator(seed: UInt64(count))
        for i in (0..<count).shuffled(using: &rng) { dict["key\(i)"] = .int(i) }
        let expected = Dictionary(uniqueKeysWithValues: (0..<count).map { ("key\($0)", $0) })
        for format in Self.formats {
            let data = try PlistValue.dictionary(dict).serialized(as: format)
            #expect(try PlistDecoder().decode([String: Int].self, from: data) == expected)
            let paths = bothPaths([String: Int].self, data)
            #expect(paths.direct == paths.tree)
        }
    }

    /// Keys a file repeats, keys that differ only in normalization, keys that are not ASCII, and a
    /// key equal to an ASCII name only canonically (KELVIN SIGN is "K"): the direct path matches
    /// the tree path's answers, values and errors alike.
    @Test func unusualKeys() throws {
        struct Named: Decodable {
            var key: Int?, cafe: Int?, plain: Int?
            enum CodingKeys: String, CodingKey { case key = "Key", cafe = "caf\u{E9}", plain }
        }
        struct Strict: Decodable { var plain: Int }
        let kelvinKey = "\u{212A}ey"
        let files: [(String, Data)] = [
            ("repeated keys, XML", directXML("<dict><key>plain</key><integer>1</integer><key>other</key><string>x</string><key>plain</key><integer>2</integer></dict>")),
            ("NFD then NFC, XML", directXML("<dict><key>cafe\u{301}</key><integer>1</integer><key>caf\u{E9}</key><integer>2</integer><key>plain</key><integer>3</integer></dict>")),
            ("Kelvin sign, XML", directXML("<dict><key>\(kelvinKey)</key><integer>7</integer></dict>")),
            ("NFD then NFC, binary", try PlistValue.dictionary(["cafe\u{301}": .int(1), "caf\u{E9}": .int(2), "plain": .string("x")]).serialized(as: .binary)),
            ("Kelvin sign, binary", try PlistValue.dictionary([kelvinKey: .int(7), "plain": .int(1)]).serialized(as: .binary)),
            ("many non-ASCII keys, binary", try PlistValue.dictionary(PlistDictionary((0..<40).map { ("é\($0)", PlistValue.int($0)) } + [("plain", .int(5))])).serialized(as: .binary)),
            ("repeated keys, large XML", directXML("<dict>" + (0..<30).map { "<key>k\($0 % 20)</key><integer>\($0)</integer>" }.joined() + "<key>plain</key><integer>9</integer></dict>")),
        ]
        for (name, data) in files {
            for paths in [bothPaths(Named.self, data), bothPaths(Strict.self, data), bothPaths([String: Int].self, data),
                          bothPaths([String: PlistAny].self, data)] {
                #expect(paths.direct == paths.tree, "\(name)")
            }
        }
    }

    /// Every scalar kind read as every other: the same values and the same errors (with their
    /// paths) as the tree path, in both formats, including UIDs, `$null` and 16-byte integers.
    @Test(arguments: formats)
    func conversionsAndMismatches(format: PlistFormat) throws {
        let values: [PlistValue] = [
            .string("s"), .string("$null"), .int(5), .int(-1), .integer(PlistInteger(UInt64.max)), .integer(PlistInteger(Int128(1) << 100)),
            .real(2.5), .real(3), .float(1.5), .bool(true), .date(Date(timeIntervalSinceReferenceDate: 86_400)),
            .data(Data([1, 2])), .array([.int(1)]), .dictionary(["k": .int(1)]), .uid(3),
        ]
        let data = try PlistValue.array(values).serialized(as: format)
        func check<T: Decodable>(_ type: T.Type) {
            let paths = bothPaths([T].self, data)
            if format == .binary { #expect(paths.direct == paths.tree, "\(T.self)") }
            for i in values.indices {
                let one = try? PlistValue.array([values[i]]).serialized(as: format)
                let single = bothPaths([T].self, one ?? Data())
                // XML reals round to Float on the direct path as `PropertyListDecoder` rounds them; the
                // value tree (no format) converts exactly. Everything else agrees.
                if format == .xml, T.self == Float.self { continue }
                #expect(single.direct == single.tree, "\(T.self) from \(values[i])")
            }
        }
        check(String.self); check(Int.self); check(Int8.self); check(UInt64.self); check(Double.self); check(Float.self)
        check(Bool.self); check(Date.self); check(Data.self); check([Int].self); check([String: Int].self)
        check(Int?.self); check(String?.self)
    }

    /// Malformed input fails before decoding starts, with the tree reader's `PlistError` (kind,
    /// message, location), even where the type would never look.
    @Test func malformedInputIsReportedWhereverItIs() throws {
        struct First: Decodable { var a: Int }
        let good = try PlistEncoder().encode(["a": [1], "z": [2, 3]])
        var badTail = good
        // Point the last offset-table entry outside the object area.
        let trailer = try #require(BinaryTrailer(good))
        let lastEntry = Int(trailer.offsetTableOffset) + (Int(trailer.objectCount) - 1) * trailer.offsetIntSize
        badTail[lastEntry] = 0xFF
        let files: [Data] = [
            badTail, good.prefix(good.count - 1), Data("bplist00".utf8),
            directXML("<dict><key>a</key><integer>1</integer><key>z</key><integr>2</integr></dict>"),
            directXML("<dict><key>a</key><integer>1</integer><key>z</key><date>2020-02-31</date></dict>"),
            directXML("<dict><key>a</key><integer>1</integer><key>z</key><data>AAA</data></dict>"),
        ]
        for data in files {
            let paths = bothPaths(First.self, data)
            #expect(paths.direct == paths.tree)
        }
        var strict = PlistDecoder()
        strict.options.maxDepth = 1
        #expect(throws: DecodingError.self) { try strict.decode([[Int]].self, from: PlistEncoder().encode([[1]])) }
    }

    /// A decoder that a `Decodable` keeps and uses after `decode` returns reads valid memory: the
    /// binary store owns a copy of the bytes, so the caller's `Data` may be gone.
    @Test func keptDecoderOutlivesTheCall() throws {
        final class Keeper: Decodable, @unchecked Sendable {
            let decoder: any Decoder
            init(from decoder: any Decoder) throws { self.decoder = decoder }
        }
        var data: Data? = try PlistEncoder().encode(["a": ["b": "value"]])
        let keeper = try PlistDecoder().decode([String: Keeper].self, from: data!)
        data = nil
        let container = try #require(keeper["a"]).decoder.container(keyedBy: PlistAnyKey.self)
        #expect(!container.allKeys.isEmpty)
    }
}

/// Any property-list value, decoded through whichever container the file has.
private enum PlistAny: Decodable, Equatable {
    case int(Int), string(String), other

    init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if let i = try? single.decode(Int.self) { self = .int(i) } else if let s = try? single.decode(String.self) {
            self = .string(s)
        } else { self = .other }
    }
}

private struct PlistAnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
