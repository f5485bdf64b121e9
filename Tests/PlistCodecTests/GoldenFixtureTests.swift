import Foundation
import PlistCodec
import TestSupport
import Testing

/// Golden bytes: Apple-written files (`Fixtures/PlistCodec/apple/`) and our own recordings of
/// `Foundation.PropertyListEncoder` (`Fixtures/PlistCodec/recorded/`).
///
/// Re-record with `PLIST_RECORD_FIXTURES=1 swift test --filter GoldenFixtureTests` (it writes only
/// the `recorded/` files, from Foundation's encoder, never from ours).
@Suite struct GoldenFixtureTests {
    static let ruby = "PlistCodec/apple/cfpropertylist-ruby"
    static let cpythonXML = "PlistCodec/apple/cpython/testdata_xml.plist"
    static let cpythonBinary = "PlistCodec/apple/cpython/testdata_binary.plist"
    static let keyedArchive = "PlistCodec/apple/cpython/keyed_archive.bplist"
    static let swiftFoundation = [
        "PlistCodec/apple/swift-foundation/Generic_XML_Properties.plist",
        "PlistCodec/apple/swift-foundation/Generic_XML_Properties_Binary.plist",
    ]
    /// CoreFoundation rounds the offset width of these up to 4 bytes; `PropertyListEncoder` uses 3.
    static let coreFoundationOnly: Set = ["offsets_4_bytes.plist", "data_long_4_bytes.plist"]

    static let foundationGoldens = Fixtures.list(ruby).filter { path in
        !coreFoundationOnly.contains(String(path.split(separator: "/").last ?? ""))
    } + [cpythonXML, cpythonBinary] + swiftFoundation
    static let coreFoundationGoldens = Fixtures.list(ruby) + [cpythonXML, cpythonBinary]

    @Test func mismatchReportNamesFirstDifferingByte() throws {
        #expect(Fixtures.firstDifference(Data([1, 2, 3]), Data([1, 2, 3])) == nil)
        let report = try #require(Fixtures.firstDifference(Data([0xAA, 0xBB, 0xCC, 0xDD]), Data([0xAA, 0xBB, 0, 0xDD])))
        #expect(report.contains("first difference at byte 2 (0x2)"))
        #expect(report.contains("aa bb [cc] dd") && report.contains("aa bb [00] dd"))
        let shorter = try #require(Fixtures.firstDifference(Data([1, 2]), Data([1, 2, 3])))
        #expect(shorter.contains("at byte 2") && shorter.contains("actual 2 bytes, expected 3 bytes"))
    }

    // MARK: Apple files: parse, then write the same bytes

    @Test func appleFixturesArePresent() {
        #expect(Fixtures.list(Self.ruby).count == 24)
        #expect(Self.foundationGoldens.count == 26)
        #expect(Self.coreFoundationGoldens.count == 26)
    }

    @Test(arguments: foundationGoldens)
    func rewritesInFoundationMode(_ path: String) throws {
        try expectParseThenWriteIsIdentity(path, mode: .foundation)
    }

    @Test(arguments: coreFoundationGoldens)
    func rewritesInCoreFoundationMode(_ path: String) throws {
        try expectParseThenWriteIsIdentity(path, mode: .coreFoundation)
    }

    func expectParseThenWriteIsIdentity(_ path: String, mode: PlistWriteMode) throws {
        let golden = try Fixtures.data(path)
        let format = PlistFormat.detect(golden)
        let value = try PlistValue(parsing: golden)
        expectSameBytes(try value.serialized(as: format, mode: mode), golden, "\(path) (\(mode))")
    }

    @Test func keyedArchiveReadsUIDs() throws {
        let value = try PlistValue(parsing: Fixtures.data(Self.keyedArchive))
        let root = try #require(value.dictionaryValue)
        #expect(root.keys == ["$version", "$objects", "$archiver", "$top"])
        #expect(root["$version"] == .int(100_000))
        #expect(root["$archiver"] == .string("NSKeyedArchiver"))
        #expect(root["$top"] == .dictionary(["root": .uid(1)]))
        let objects = try #require(root["$objects"]?.arrayValue)
        #expect(objects.count == 3)
        #expect(objects.first == .string("$null"))
        let string = try #require(objects.dropFirst().first?.dictionaryValue)
        #expect(string["$class"] == .uid(2))
        #expect(string["NS.string"] == .string("KeyArchive UID Test"))
        #expect(string["pytype"] == .int(1))
        let classes = objects.last?.dictionaryValue?["$classes"]?.arrayValue
        #expect(classes?.first == .string("OC_BuiltinPythonUnicode"))
        #expect(classes?.count == 4)
    }

    // MARK: The CPython test data as a Codable model

    @Test(arguments: [PlistFormat.xml, .binary])
    func cpythonModelEncodesToTestData(_ format: PlistFormat) throws {
        let golden = try Fixtures.data(format == .xml ? Self.cpythonXML : Self.cpythonBinary)
        let foundation = PropertyListEncoder()
        foundation.outputFormat = format == .xml ? .xml : .binary
        expectSameBytes(try foundation.encode(CPythonTestData.sample), golden, "Foundation, \(format)")
        var ours = PlistEncoder()
        ours.outputFormat = format
        expectSameBytes(try ours.encode(CPythonTestData.sample), golden, "PlistEncoder, \(format)")
    }

    @Test(arguments: [PlistFormat.xml, .binary])
    func cpythonTestDataDecodesToModel(_ format: PlistFormat) throws {
        let golden = try Fixtures.data(format == .xml ? Self.cpythonXML : Self.cpythonBinary)
        #expect(try PropertyListDecoder().decode(CPythonTestData.self, from: golden) == .sample)
        #expect(try PlistDecoder().decode(CPythonTestData.self, from: golden) == .sample)
    }

    // MARK: Recorded fixtures (Foundation.PropertyListEncoder on this machine)

    static var isRecording: Bool { ProcessInfo.processInfo.environment["PLIST_RECORD_FIXTURES"] == "1" }

    @Test(arguments: RecordedCase.all)
    func foundationMatchesRecording(_ recorded: RecordedCase) throws {
        let bytes = try recorded.encodeWithFoundation()
        if Self.isRecording {
            let url = Fixtures.url(recorded.path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: url)
            print("recorded \(recorded.path) (\(bytes.count) bytes)")
        } else {
            expectSameBytes(bytes, try Fixtures.data(recorded.path), "Foundation, \(recorded.path)")
        }
    }

    @Test(arguments: RecordedCase.all)
    func plistEncoderMatchesRecording(_ recorded: RecordedCase) throws {
        let golden = try Fixtures.data(recorded.path)
        expectSameBytes(try recorded.encodeWithPlistEncoder(), golden, "PlistEncoder, \(recorded.path)")
    }

    @Test(arguments: RecordedCase.all)
    func plistDecoderReadsRecording(_ recorded: RecordedCase) throws {
        try recorded.checkDecoding(Fixtures.data(recorded.path))
    }

    @Test(arguments: RecordedCase.all)
    func recordingRewritesInFoundationMode(_ recorded: RecordedCase) throws {
        try expectParseThenWriteIsIdentity(recorded.path, mode: .foundation)
    }
}

// Everything below is nested in the suite so its names cannot clash with other test files.
extension GoldenFixtureTests {
    /// Records an issue that names the first differing byte, with hex context, when `actual != expected`.
    func expectSameBytes(
        _ actual: Data, _ expected: Data, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        if let difference = Fixtures.firstDifference(actual, expected) {
            Issue.record("\(what): \(difference)", sourceLocation: sourceLocation)
        }
    }

    /// One recorded fixture: a model, a format, and how to encode and decode it with both codecs.
    struct RecordedCase: Sendable, CustomTestStringConvertible {
        let name: String
        let format: PlistFormat
        let encodeWithFoundation: @Sendable () throws -> Data
        let encodeWithPlistEncoder: @Sendable () throws -> Data
        let checkDecoding: @Sendable (Data) throws -> Void

        var path: String { "PlistCodec/recorded/\(name)-\(format.rawValue).plist" }
        var testDescription: String { path }

        static let all: [RecordedCase] = [
            cases("nested", Company.sample), cases("optionals", Optionals.sample),
            cases("integers", Integers.sample), cases("reals", Reals.sample), cases("dates", Dates.sample),
            cases("data", Blobs.sample), cases("strings", Strings.sample), cases("empty", Empties()),
            cases("sharing", Sharing.sample),
        ].flatMap { $0 }

        static func cases<M: Codable & Equatable & Sendable>(_ name: String, _ model: M) -> [RecordedCase] {
            [PlistFormat.xml, .binary].map { format in
                RecordedCase(
                    name: name, format: format,
                    encodeWithFoundation: {
                        let encoder = PropertyListEncoder()
                        encoder.outputFormat = format == .xml ? .xml : .binary
                        return try encoder.encode(model)
                    },
                    encodeWithPlistEncoder: {
                        var encoder = PlistEncoder()
                        encoder.outputFormat = format
                        return try encoder.encode(model)
                    },
                    checkDecoding: { data in
                        // XML truncates fractional seconds, so the oracle is Foundation's decoding of the file.
                        let oracle = try PropertyListDecoder().decode(M.self, from: data)
                        if format == .binary { #expect(oracle == model, "Foundation lost data: \(name)") }
                        #expect(try PlistDecoder().decode(M.self, from: data) == oracle)
                    })
            }
        }
    }

    // MARK: - Models recorded in Fixtures/PlistCodec/recorded/ (changing one means re-recording)

    /// Deterministic bytes: `count` bytes of an affine sequence.
    static func blob(_ count: Int, seed: UInt8 = 11) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ Int(seed)) })
    }

    struct Geo: Codable, Equatable, Sendable { var lat: Double; var lon: Double }
    struct Address: Codable, Equatable, Sendable { var street: String; var city: String; var geo: Geo }
    struct Employee: Codable, Equatable, Sendable { var name: String; var id: Int; var manager: Bool; var tags: [String] }

    /// Nested structs and arrays of structs.
    struct Company: Codable, Equatable, Sendable {
        var name: String, address: Address, employees: [Employee], founded: Date
        static let sample = Company(
            name: "Initech", address: Address(street: "4120 Freidrich Ln", city: "Austin", geo: Geo(lat: 30.4, lon: -97.7)),
            employees: [
                Employee(name: "Peter", id: 1, manager: false, tags: ["tps", "reports"]),
                Employee(name: "Bill", id: 2, manager: true, tags: []),
                Employee(name: "Milton", id: 3, manager: false, tags: ["stapler"]),
            ],
            founded: Date(timeIntervalSinceReferenceDate: -1_000_000_000))
    }

    /// `nil` in arrays and an explicitly encoded `nil` become `$null`; a synthesized optional is omitted.
    struct Optionals: Codable, Equatable, Sendable {
        var present: Int?
        var absent: Int?
        var explicitNil: String?
        var ints: [Int?]
        var strings: [String?]
        static let sample = Optionals(present: 7, absent: nil, explicitNil: nil, ints: [1, nil, 3, nil], strings: [nil, "null", nil])
        enum CodingKeys: String, CodingKey { case present, absent, explicitNil, ints, strings }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeIfPresent(present, forKey: .present)
            try c.encodeIfPresent(absent, forKey: .absent)
            try c.encode(explicitNil, forKey: .explicitNil)
            try c.encode(ints, forKey: .ints)
            try c.encode(strings, forKey: .strings)
        }
    }

    /// Every integer width at its bounds; `UInt64` and `UInt` are 16-byte integers.
    struct Integers: Codable, Equatable, Sendable {
        var i8: [Int8] = [.min, -1, 0, 1, .max], i16: [Int16] = [.min, -129, 128, .max]
        var i32: [Int32] = [.min, -32769, 32768, .max], i64: [Int64] = [.min, -2_147_483_649, 4_294_967_296, .max]
        var int: [Int] = [.min, -1, 255, 256, 65_535, 65_536, .max]
        var u8: [UInt8] = [0, 1, .max], u16: [UInt16] = [0, 256, .max], u32: [UInt32] = [0, 65_536, .max]
        var u64: [UInt64] = [0, 1, UInt64(Int64.max), UInt64(Int64.max) + 1, .max], uint: [UInt] = [0, 42, .max]
        static let sample = Integers()
    }

    /// Floats and doubles, NaN and infinities included; compared bit for bit.
    struct Reals: Codable, Equatable, Sendable {
        var doubles: [Double] = [0.1, 1, -0.0, 1e16, 1e-5, .pi, 32.5, .greatestFiniteMagnitude,
                                 .leastNonzeroMagnitude, .nan, .nan, .infinity, -.infinity]
        var floats: [Float] = [0.1, 1, 3.5, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .nan, .infinity, -.infinity]
        var single: Float = 2.5, double: Double = 2.5
        static let sample = Reals()
        static func == (a: Reals, b: Reals) -> Bool {
            a.doubles.map(\.bitPattern) == b.doubles.map(\.bitPattern) && a.floats.map(\.bitPattern) == b.floats.map(\.bitPattern)
                && a.single.bitPattern == b.single.bitPattern && a.double.bitPattern == b.double.bitPattern
        }
    }

    /// Dates before 1970, before 1582 (Julian in XML), with fractions, and at both extremes.
    struct Dates: Codable, Equatable, Sendable {
        var epoch1970 = Date(timeIntervalSince1970: 0), reference = Date(timeIntervalSinceReferenceDate: 0)
        var dates: [Date] = [-1.5, 123.75, -1_000_000_000.25, 1e9 + 0.001, -978_307_201, -14_000_000_000, -63_114_076_800.5]
            .map { Date(timeIntervalSinceReferenceDate: $0) } + [.distantPast, .distantFuture]
        static let sample = Dates()
    }

    /// Data blobs of 0, 15 and 255 bytes, and a staircase of blobs nested 1 to 11 levels deep.
    struct Blobs: Codable, Equatable, Sendable {
        var empty = Data(), fifteen = blob(15), long = blob(255), staircase = Staircase(steps: (0..<10).map { blob(60, seed: UInt8($0)) })
        static let sample = Blobs()
    }

    /// `[d0, [d1, [d2, ...]]]`: one blob per nesting level, for the base64 indentation rules.
    struct Staircase: Codable, Equatable, Sendable {
        var steps: [Data]
        init(steps: [Data]) { self.steps = steps }
        func encode(to encoder: Encoder) throws {
            var level = encoder.unkeyedContainer()
            for (i, step) in steps.enumerated() {
                try level.encode(step)
                if i < steps.count - 1 { level = level.nestedUnkeyedContainer() }
            }
        }
        init(from decoder: Decoder) throws {
            var level = try decoder.unkeyedContainer()
            steps = []
            while true {
                steps.append(try level.decode(Data.self))
                if level.isAtEnd { break }
                level = try level.nestedUnkeyedContainer()
            }
        }
    }

    /// ASCII with XML escapes, Latin-1, CJK, astral characters, and dictionary keys across the planes.
    struct Strings: Codable, Equatable, Sendable {
        var ascii = "quotes \" ' tab\tand <&> escapes", latin = "Mässig, Maß", cjk = "日本語のテキスト", astral = "😀 𝄞 𐍈"
        var edges = ["\u{7F}", "\u{80}", "\u{FFFD}", "\u{E000}", "\u{10FFFF}", "]]>", ""]
        var keyed: [String: Int] = ["b": 1, "a": 2, "é": 3, "😀": 4, "Z": 5, "\u{E000}": 6]
        static let sample = Strings()
    }

    struct Nothing: Codable, Equatable, Sendable {}

    /// Every kind of empty container, plus an empty string and empty data.
    struct Empties: Codable, Equatable, Sendable {
        var array: [Int] = [], dict: [String: Int] = [:], object = Nothing(), nested: [[Int]] = [[]], string = "", data = Data()
    }

    /// Repeated values: equal scalars of one kind are written once; kinds and containers are not merged.
    struct Sharing: Codable, Equatable, Sendable {
        var names = ["x", "x", "y", "x"], utf16 = ["é", "é"], ints: [Int] = [1, 1, 2], wide: [UInt64] = [1, 1, 2]
        var float: Float = 1, double: Double = 1, dates = [Date(timeIntervalSinceReferenceDate: 5), Date(timeIntervalSinceReferenceDate: 5)]
        var blobs = [blob(3), blob(3)], flags = [true, false, true, true], points = [Geo(lat: 1, lon: 2), Geo(lat: 1, lon: 2)]
        static let sample = Sharing()
    }

    // MARK: - CPython's test data (Lib/test/test_plistlib.py), properties in alphabetical order

    /// A heterogeneous array element.
    enum Item: Codable, Equatable, Sendable {
        case int(Int), real(Double), text(String), list([Item])
        func encode(to encoder: Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .int(let v): try c.encode(v)
            case .real(let v): try c.encode(v)
            case .text(let v): try c.encode(v)
            case .list(let v): try c.encode(v)
            }
        }
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let v = try? c.decode(String.self) { self = .text(v) }
            else if let v = try? c.decode(Int.self) { self = .int(v) }
            else if let v = try? c.decode(Double.self) { self = .real(v) }
            else { self = .list(try c.decode([Item].self)) }
        }
    }

    struct CPythonTestData: Codable, Equatable, Sendable {
        struct Inner: Codable, Equatable, Sendable {
            var aFalseValue: Bool, aTrueValue: Bool, aUnicodeValue: String, anotherString: String, deeperDict: Deeper
        }
        struct Deeper: Codable, Equatable, Sendable { var a: Int, b: Double, c: [Item] }

        var aBigInt: Int64, aBigInt2: UInt64, aDate: Date, aDict: Inner, aFloat: Double, aList: [Item]
        var aNegativeBigInt: Int, aNegativeInt: Int, aString: String, anEmptyDict: [String: Int], anEmptyList: [Int]
        var anInt: Int, nestedData: [Data], someData: Data, someMoreData: Data, Åbenraa: String

        static let gunk = Data(repeating: 0, count: 10).reduce(into: Data()) { d, _ in d += Data("<lots of binary gunk>".utf8) + [0, 1, 2, 3] }
        static let sample = CPythonTestData(
            aBigInt: 9_223_372_036_854_775_764, aBigInt2: 9_223_372_036_854_775_852,
            aDate: Date(timeIntervalSinceReferenceDate: 120_479_613),
            aDict: Inner(aFalseValue: false, aTrueValue: true, aUnicodeValue: "Mässig, Maß", anotherString: "<hello & 'hi' there!>",
                         deeperDict: Deeper(a: 17, b: 32.5, c: [.int(1), .int(2), .text("text")])),
            aFloat: 0.5, aList: [.text("A"), .text("B"), .int(12), .real(32.5), .list([.int(1), .int(2), .int(3)])],
            aNegativeBigInt: -80_000_000_000, aNegativeInt: -5, aString: "Doodah", anEmptyDict: [:], anEmptyList: [],
            anInt: 728, nestedData: [gunk], someData: Data("<binary gunk>".utf8), someMoreData: gunk,
            Åbenraa: "That was a unicode key.")
    }
}
