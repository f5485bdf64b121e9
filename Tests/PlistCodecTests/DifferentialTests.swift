import Foundation
import PlistCodec
import Testing
import TestSupport

// Differential tests: `PlistEncoder` must write the same bytes as `Foundation.PropertyListEncoder` (whose
// code on this machine is macOS 14+'s), and `PlistDecoder` must read Foundation's bytes exactly as
// Foundation's decoder does. Values are random; every run prints its seed, and
// `PLIST_DIFF_SEED=<seed> swift test --filter DifferentialTests` replays it (`PLIST_DIFF_SCALE=10` runs
// ten times as many values). The generated values avoid the documented divergences (see
// DivergenceTests.swift): zeros are `+0.0`, strings are NFC, `Dictionary` keys other than `String` appear
// at most once per dictionary.

/// Runs `count` generated values through `DifferentialCheck`, stopping at the first encoder failure and
/// the first decoder failure (each is recorded once, with the seed and the value's index).
private func runDifferential<T: Codable>(
    _ name: String, format: PlistFormat, count: Int,
    make: (inout RandomModels, Int) -> T
) {
    let seed = TestSeed.make()
    print("seed: \(seed) (\(name), \(format), \(count) values; replay with \(TestSeed.variable)=\(seed))")
    var models = RandomModels(seed: seed, forXML: format == .xml)
    let check = DifferentialCheck(format: format)
    var failed: Set<DifferentialFailure.Kind> = []
    var checked = 0
    for index in 0..<count {
        let value = make(&models, index)
        checked += 1
        for failure in check.failures(for: value, label: "plist-diff-\(seed)-\(name)-\(index)", skipping: failed) {
            failed.insert(failure.kind)
            Issue.record("seed \(seed), \(name) #\(index) (\(format)), \(failure.kind) failure:\n\(failure)")
        }
        if failed.contains(.generator) || failed.isSuperset(of: [.encoder, .decoder]) { break }
    }
    print("checked \(checked) \(name) values (\(format)), seed \(seed)")
    #expect(checked == count || !failed.isEmpty)
}

@Suite("Differential against Foundation.PropertyListEncoder")
struct DifferentialTests {
    static let formats: [PlistFormat] = [.binary, .xml]

    /// Whole documents: nested structs, every scalar kind, optionals, arrays, dictionaries, children.
    @Test(arguments: formats, 0..<3)
    func documents(format: PlistFormat, batch: Int) {
        runDifferential("documents\(batch)", format: format, count: 80 * TestSeed.scale) { models, index in
            models.document(depth: index % 4 == 0 ? 2 : 1)
        }
    }

    /// Many small values of each model type, so each field kind is seen in thousands of encodings.
    @Test(arguments: formats)
    func smallStructs(format: PlistFormat) {
        runDifferential("scalars", format: format, count: 600 * TestSeed.scale) { models, _ in models.scalars() }
        runDifferential("optionals", format: format, count: 400 * TestSeed.scale) { models, _ in models.optionals() }
        runDifferential("leaves", format: format, count: 400 * TestSeed.scale) { models, _ in
            models.array(upTo: 8) { $0.leaf() }
        }
    }

    /// Hand-written `encode(to:)`: nested containers, `encodeNil`, super-encoders, single-value containers.
    @Test(arguments: formats)
    func manualContainers(format: PlistFormat) {
        runDifferential("manual", format: format, count: 300 * TestSeed.scale) { models, _ in
            models.manualContainers()
        }
    }

    /// Top-level arrays, `Data` and `[String: V]` of random contents, including empty ones.
    @Test(arguments: formats)
    func topLevelShapes(format: PlistFormat) {
        let check = DifferentialCheck(format: format)
        let seed = TestSeed.make()
        print("seed: \(seed) (topLevelShapes, \(format); replay with \(TestSeed.variable)=\(seed))")
        var models = RandomModels(seed: seed, forXML: format == .xml)
        for index in 0..<(400 * TestSeed.scale) {
            let label = "plist-diff-\(seed)-top-\(index)"
            let failures: [DifferentialFailure]
            switch index % 10 {
            case 0: failures = check.failures(for: models.values.data(), label: label)
            case 1: failures = check.failures(for: models.array { $0.values.data() }, label: label)
            case 2: failures = check.failures(for: models.array(upTo: 40) { $0.values.string() }, label: label)
            case 3: failures = check.failures(for: models.array { $0.values.double() }, label: label)
            case 4: failures = check.failures(for: models.dictionary { $0.scalars() }, label: label)
            case 5: failures = check.failures(for: models.dictionary { $0.values.date() }, label: label)
            case 6: failures = check.failures(for: models.array(upTo: 4) { $0.dictionary { $0.values.integer() as Int64 } }, label: label)
            case 7: failures = check.failures(for: models.array(upTo: 3) { $0.array(upTo: 3) { _ in EmptyModel() } }, label: label)
            case 8: failures = check.failures(for: models.dictionary { $0.values.rng.chance(0.5) }, label: label)
            default: failures = check.failures(for: models.array(upTo: 3) { $0.manualContainers() }, label: label)
            }
            for failure in failures {
                Issue.record("seed \(seed), top-level shape #\(index) (\(format)), \(failure.kind) failure:\n\(failure)")
            }
            if !failures.isEmpty { break }
        }
    }

    /// Fixed top-level values: empty and non-empty arrays, `Data`, `[String: V]` whose keys need sorting.
    @Test(arguments: formats)
    func topLevelFixed(format: PlistFormat) {
        let check = DifferentialCheck(format: format)
        var failures: [DifferentialFailure] = []
        failures += check.failures(for: [Int]())
        failures += check.failures(for: [String: Int]())
        failures += check.failures(for: Data())
        failures += check.failures(for: Data([0, 1, 2, 0xFF]))
        failures += check.failures(for: [EmptyModel()])
        failures += check.failures(for: ["b": 1, "a": 2, "": 3, "é": 4, "e": 5, "\u{E000}": 6, "🚀": 7, "Z": 8])
        failures += check.failures(for: ["x": ["y": ["z": [1, 2, 3]]]])
        failures += check.failures(for: [[Int8]]([[], [-1], [127, -128]]))
        failures += check.failures(for: Optional<[Int]>.some([1, 1, 1]))
        failures += check.failures(for: [true, false, true, true, false])
        for failure in failures { Issue.record("top-level fixed (\(format)), \(failure.kind) failure:\n\(failure)") }
    }

    /// The comparisons these tests rely on can fail: they see a changed byte, a zero's sign, a NaN's
    /// absence, a decomposed string, a date a microsecond off, and a missing optional.
    @Test func comparisonsDetectDifferences() {
        #expect(ExactDiff.describeMismatch(ours: Data([1, 2, 3]), theirs: Data([1, 2, 3])) == nil)
        #expect(ExactDiff.describeMismatch(ours: Data([1, 2, 3]), theirs: Data([1, 9, 3]))?.contains("offset 1") == true)
        #expect(ExactDiff.describeMismatch(ours: Data([1, 2]), theirs: Data([1, 2, 3]))?.contains("offset 2") == true)
        #expect(ExactDiff.firstDifference([Double.nan, 1], [Double.nan, 1]) == nil)
        #expect(ExactDiff.firstDifference([0.0], [-0.0]) != nil)
        #expect(ExactDiff.firstDifference([Double.nan], [1.0]) != nil)
        #expect(ExactDiff.firstDifference(["\u{E9}"], ["e\u{301}"]) != nil)
        #expect(ExactDiff.firstDifference(["k": 1], ["k": 2]) != nil)
        #expect(ExactDiff.firstDifference(["k": 1], ["j": 1]) != nil)
        #expect(ExactDiff.firstDifference(RandomLevel.low, RandomLevel.zero) != nil)
        var models = RandomModels(seed: 1, forXML: false)
        let leaf = models.leaf()
        var other = leaf
        other.when = Date(timeIntervalSinceReferenceDate: (leaf.when?.timeIntervalSinceReferenceDate ?? 0) + 1e-6)
        #expect(ExactDiff.firstDifference(leaf, leaf) == nil)
        #expect(ExactDiff.firstDifference(leaf, other)?.contains("value.when") == true)
        var document = models.document(depth: 1)
        #expect(ExactDiff.firstDifference(document, document) == nil)
        let original = document
        document.optionals.int = document.optionals.int == nil ? 1 : nil
        #expect(ExactDiff.firstDifference(original, document)?.contains("optionals.int") == true)
    }

    /// Values of one type decoded as another: `PlistDecoder` converts (or refuses) as Foundation does.
    @Test(arguments: formats)
    func decodingAsOtherTypes(format: PlistFormat) throws {
        let encoder = DifferentialCheck(format: format).foundationEncoder
        let sources: [(String, Data)] = [
            ("Int 1", try encoder.encode([1])), ("Int 300", try encoder.encode([300])),
            ("Int -1", try encoder.encode([-1])), ("Int64.max", try encoder.encode([Int64.max])),
            ("UInt64.max", try encoder.encode([UInt64.max])), ("UInt64 7", try encoder.encode([UInt64(7)])),
            ("Double 1", try encoder.encode([1.0])), ("Double 1.5", try encoder.encode([1.5])),
            ("Double 1e300", try encoder.encode([1e300])), ("Double nan", try encoder.encode([Double.nan])),
            ("Double -inf", try encoder.encode([-Double.infinity])), ("Float 0.1", try encoder.encode([Float(0.1)])),
            ("Double 0.1", try encoder.encode([0.1])), ("Double 1e-50", try encoder.encode([1e-50])),
            ("Double 3.5e38", try encoder.encode([3.5e38])), ("Double 16777217", try encoder.encode([16_777_217.0])),
            ("Double 2^63", try encoder.encode([9.223372036854775808e18])), ("Double -0.5", try encoder.encode([-0.5])),
            ("Float 16777216", try encoder.encode([Float(16_777_216)])), ("Bool", try encoder.encode([true])),
            ("String 1", try encoder.encode(["1"])), ("String $null", try encoder.encode(["$null"])),
            ("String true", try encoder.encode(["true"])), ("nil", try encoder.encode([Int?.none])),
            ("Date", try encoder.encode([Date(timeIntervalSinceReferenceDate: 1.5)])),
            ("Data", try encoder.encode([Data([1, 2])])), ("empty Data", try encoder.encode([Data()])),
            ("[UInt8]", try encoder.encode([[UInt8]([1, 2])])), ("dict", try encoder.encode([["a": 1]])),
            ("Int 16777217", try encoder.encode([16_777_217])), ("dict $null", try encoder.encode([["a": "$null"]])),
        ]
        var mismatches: [String] = []
        func compare<T: Decodable>(_ type: T.Type, _ name: String, _ bytes: Data) {
            let theirs = DecodeOutcome.of(T.self) { try PropertyListDecoder().decode(T.self, from: bytes) }
            let ours = DecodeOutcome.of(T.self) { try PlistDecoder().decode(T.self, from: bytes) }
            if theirs != ours { mismatches.append("\(name) as \(T.self): Foundation \(theirs), ours \(ours)") }
        }
        for (name, bytes) in sources {
            compare([Int].self, name, bytes); compare([Int8].self, name, bytes); compare([UInt8].self, name, bytes)
            compare([UInt64].self, name, bytes); compare([Int64].self, name, bytes); compare([Double].self, name, bytes)
            compare([Float].self, name, bytes); compare([Bool].self, name, bytes); compare([String].self, name, bytes)
            compare([Date].self, name, bytes); compare([Data].self, name, bytes); compare([Int?].self, name, bytes)
            compare([String?].self, name, bytes); compare([[UInt8]].self, name, bytes)
            compare([[String: Int]].self, name, bytes); compare([RandomMood].self, name, bytes)
            compare([[String: String]].self, name, bytes); compare([[String: String?]].self, name, bytes)
        }
        #expect(mismatches.isEmpty, "\(format): \(mismatches.count) conversions differ:\n\(mismatches.joined(separator: "\n"))")
    }

    // MARK: Sizes: object-reference and offset widths

    /// Distinct objects in numbers around 256 and 65,536: 1-, 2- and 3-byte object references.
    @Test(arguments: [[254, 255, 256, 257, 300], [65_534, 65_535]])
    func objectReferenceWidths(counts: [Int]) {
        let check = DifferentialCheck(format: .binary)
        var widths: Set<Int> = []
        for count in counts {
            let value = (0..<count).map { $0 &* 1_000_003 }
            for failure in check.failures(for: value, label: "plist-diff-refs-\(count)") {
                Issue.record("\(count) distinct ints (binary), \(failure.kind) failure:\n\(failure)")
            }
            if let theirs = try? check.foundationEncoder.encode(value), let trailer = BinaryTrailer(theirs) {
                widths.insert(trailer.objectRefSize)
            }
        }
        // The sizes chosen must straddle a width change, or this test would not test it.
        #expect(widths.count == 2, "Foundation's object-reference widths for \(counts): \(widths.sorted())")
    }

    /// More than 65,536 objects of two kinds: 70,000 distinct ints and 70,000 distinct strings (binary;
    /// XML, which has no references, gets 20,000 of each).
    @Test(arguments: formats)
    func seventyThousandIntsAndStrings(format: PlistFormat) throws {
        struct Big: Codable { var ints: [Int]; var strings: [String] }
        let count = format == .binary ? 70_000 : 20_000
        let value = Big(ints: (0..<count).map { $0 * 7 - 100_000 },
                        strings: (0..<count).map { $0 % 3 == 0 ? "s\($0)" : "é\($0)🚀" })
        let check = DifferentialCheck(format: format)
        for failure in check.failures(for: value, label: "plist-diff-70k") {
            Issue.record("70,000 ints and strings (\(format)), \(failure.kind) failure:\n\(failure)")
        }
        if format == .binary {
            let trailer = try #require(BinaryTrailer(try check.foundationEncoder.encode(value)))
            // The dictionary, its 2 keys, 2 arrays and 140,000 distinct elements.
            #expect(trailer.objectRefSize == 3 && trailer.objectCount == 140_005)
        }
    }

    /// Data big enough to push the offset table past 255, 65,535 and 16,777,215 bytes.
    @Test(arguments: formats)
    func offsetWidths(format: PlistFormat) throws {
        let check = DifferentialCheck(format: format)
        var rng = SeededGenerator(seed: 0x0FF5E7)
        var sizes = [10, 200, 300, 60_000, 70_000]
        if format == .binary { sizes.append(16_800_000) }
        var widths: Set<Int> = []
        for size in sizes {
            var bytes = [UInt8](repeating: 0, count: size)
            for i in stride(from: 0, to: size, by: 8) {
                withUnsafeBytes(of: rng.next()) { word in
                    for j in 0..<min(8, size - i) { bytes[i + j] = word[j] }
                }
            }
            let value = [Data(bytes), Data(bytes.prefix(15))]
            for failure in check.failures(for: value, label: "plist-diff-offsets-\(size)") {
                Issue.record("[Data] of \(size) bytes (\(format)), \(failure.kind) failure:\n\(String(describing: failure).prefix(4000))")
            }
            if format == .binary, let trailer = BinaryTrailer(try check.foundationEncoder.encode(value)) {
                widths.insert(trailer.offsetIntSize)
            }
        }
        if format == .binary {
            #expect(widths == [1, 2, 3, 4], "Foundation's offset widths: \(widths.sorted())")
        }
    }

    // MARK: Top-level values both encoders refuse

    /// Top-level Bool, numbers, String, Date and nil: `EncodingError.invalidValue` from both encoders.
    @Test(arguments: formats)
    func refusedTopLevelValues(format: PlistFormat) {
        let check = DifferentialCheck(format: format)
        func expectRefused<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) {
            func outcome(_ encode: () throws -> Data) -> String {
                do { _ = try encode(); return "accepted" } catch EncodingError.invalidValue { return "invalidValue" } catch {
                    return "threw \(error)"
                }
            }
            let theirs = outcome { try check.foundationEncoder.encode(value) }
            let ours = outcome { try check.ourEncoder.encode(value) }
            #expect(theirs == "invalidValue", "Foundation, top-level \(T.self)", sourceLocation: sourceLocation)
            #expect(ours == "invalidValue", "PlistEncoder, top-level \(T.self) (\(format))", sourceLocation: sourceLocation)
        }
        expectRefused(true)
        expectRefused(42)
        expectRefused(Int8(-1))
        expectRefused(UInt64.max)
        expectRefused(1.5)
        expectRefused(Float(2.5))
        expectRefused("text")
        expectRefused(Date(timeIntervalSinceReferenceDate: 0))
        expectRefused(Int?.none)
        expectRefused(String?.none)
        expectRefused(RandomLevel.byte)
        expectRefused(RandomWrapped(raw: "single value"))
        expectRefused(EncodesNothing())
        // Not top-level: neither encoder supports 128-bit integers.
        expectRefused([WideIntegers()])
    }

    // MARK: Foundation types and unusual container use

    /// `URL`, `Decimal`, `UUID`, distant dates, a key encoded twice, an empty `encode(to:)`, one-key
    /// dictionaries with `Bool` and enum keys (unkeyed pairs), containers asked for twice, unused
    /// super-encoders, and nesting 482 containers deep.
    @Test(arguments: formats)
    func foundationTypesAndOddContainers(format: PlistFormat) throws {
        let check = DifferentialCheck(format: format)
        var failures: [DifferentialFailure] = []
        failures += check.failures(for: [Date.distantPast, Date.distantFuture, Date(timeIntervalSince1970: 0)])
        failures += check.failures(for: [try #require(URL(string: "https://example.com/a%20b?q=é#frag"))])
        failures += check.failures(for: [try #require(Decimal(string: "-1234.5678")), Decimal(0), Decimal.greatestFiniteMagnitude])
        failures += check.failures(for: [try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))])
        failures += check.failures(for: [KeyEncodedTwice(first: 1, second: [1, 2]), KeyEncodedTwice(first: 7, second: [])])
        failures += check.failures(for: [HoldsNothing()])
        failures += check.failures(for: [[true: 1], [false: 2]] as [[Bool: Int]])
        failures += check.failures(for: [[RandomMood.calm: "a"], [RandomMood.astral: "b"]])
        failures += check.failures(for: [[RandomLevel.byte: 1.5]])
        failures += check.failures(for: [ContainerReuse(), ContainerReuse()])
        failures += check.failures(for: NestedChain(depth: 240))  // 482 containers: within PlistReadOptions.maxDepth (512)
        for failure in failures { Issue.record("Foundation types (\(format)), \(failure.kind) failure:\n\(failure)") }
    }
}
