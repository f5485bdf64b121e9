// Black-box tests of the promises of PlistCodec's DocC articles ErrorsAndLimits.md,
// FormatsAndWriteModes.md and DifferencesFromFoundation.md, written from the articles and the public
// API only. Foundation's PropertyListEncoder/Decoder and PropertyListSerialization on this machine are
// the oracle wherever an article compares with them.
import Foundation
import PlistCodec
import Testing
import TestSupport

// MARK: - Helpers

/// Builds binary property lists by hand (objects laid out from byte 8, then the offset table and trailer).
enum DocPromiseBPlist {
    static func make(_ objects: [[UInt8]], top: Int = 0, refSize: UInt8 = 1, offsetSize: UInt8 = 1) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let tableOffset = bytes.count
        for offset in offsets { bytes += bigEndian(UInt64(offset), width: Int(offsetSize)) }
        bytes += [0, 0, 0, 0, 0, 0, offsetSize, refSize]
        bytes += bigEndian(UInt64(objects.count), width: 8)
        bytes += bigEndian(UInt64(top), width: 8)
        bytes += bigEndian(UInt64(tableOffset), width: 8)
        return Data(bytes)
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    struct Trailer { var offsetSize: Int; var refSize: Int; var objectCount: Int; var top: Int; var tableOffset: Int }

    static func trailer(_ data: Data) -> Trailer {
        let t = Array(data.suffix(32))
        func be(_ range: Range<Int>) -> Int { range.reduce(0) { $0 << 8 | Int(t[$1]) } }
        return Trailer(offsetSize: Int(t[6]), refSize: Int(t[7]), objectCount: be(8..<16), top: be(16..<24), tableOffset: be(24..<32))
    }

    /// The offset of object `index`.
    static func offset(of index: Int, in data: Data) -> Int {
        let bytes = Array(data), tr = trailer(data)
        let start = tr.tableOffset + index * tr.offsetSize
        return bytes[start..<start + tr.offsetSize].reduce(0) { $0 << 8 | Int($1) }
    }

    /// The object references of the array at `index` (a count below 15).
    static func arrayReferences(of index: Int, in data: Data) -> [Int] {
        let bytes = Array(data), tr = trailer(data)
        let at = offset(of: index, in: data)
        let count = Int(bytes[at] & 0x0F)
        return (0..<count).map { i in
            let s = at + 1 + i * tr.refSize
            return bytes[s..<s + tr.refSize].reduce(0) { $0 << 8 | Int($1) }
        }
    }
}

/// Compares a PlistValue with what Foundation's `PropertyListSerialization` returned.
enum DocPromiseOracle {
    static func same(_ value: PlistValue, _ any: Any) -> Bool {
        switch value {
        case .string(let s): return (any as? String).map { Array($0.unicodeScalars) == Array(s.unicodeScalars) } ?? false
        case .integer(let i): return (any as? NSNumber).map { "\($0)" == "\(i.value)" } ?? false
        case .real(let d): return (any as? Double).map { $0.bitPattern == d.bitPattern || ($0.isNaN && d.isNaN) } ?? false
        case .float(let f): return (any as? Double).map { $0 == Double(f) } ?? false
        case .bool(let b): return (any as? Bool) == b
        case .date(let d): return (any as? Date) == d
        case .data(let d): return (any as? Data) == d
        case .array(let a):
            guard let other = any as? [Any], other.count == a.count else { return false }
            return zip(a, other).allSatisfy { same($0, $1) }
        case .dictionary(let d):
            guard let other = any as? [String: Any], other.count == d.count else { return false }
            return d.allSatisfy { entry in other[entry.key].map { same(entry.value, $0) } ?? false }
        case .uid: return false
        }
    }

    static func foundationXML<T: Encodable>(_ value: T) throws -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        return try encoder.encode(value)
    }

    static func foundationBinary<T: Encodable>(_ value: T) throws -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return try encoder.encode(value)
    }

    static func ourXML<T: Encodable>(_ value: T) throws -> Data {
        var encoder = PlistEncoder()
        encoder.outputFormat = .xml
        return try encoder.encode(value)
    }

    static func ourBinary<T: Encodable>(_ value: T) throws -> Data {
        var encoder = PlistEncoder()
        encoder.outputFormat = .binary
        return try encoder.encode(value)
    }

    static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    static func fixture(_ relative: String) throws -> Data {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try Data(contentsOf: root.appendingPathComponent("Fixtures/PlistCodec/" + relative))
    }

    static func xml(_ body: String) -> Data {
        Data(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n" + body + "\n</plist>\n").utf8)
    }

    /// `depth` nested arrays around an integer, as XML.
    static func nestedXML(depth: Int) -> Data {
        xml(String(repeating: "<array>", count: depth) + "<integer>1</integer>" + String(repeating: "</array>", count: depth))
    }

    /// A value of `depth` nested arrays around an integer.
    static func nestedValue(depth: Int) -> PlistValue {
        var value = PlistValue.int(1)
        for _ in 0..<depth { value = .array([value]) }
        return value
    }

    /// A binary file of `levels` arrays, each referencing the next twice, the last a scalar:
    /// 2^(levels+1) - 1 values when every reference is counted.
    static func fanout(levels: Int) -> Data {
        var objects: [[UInt8]] = []
        for i in 0..<levels { objects.append([0xA2, UInt8(i + 1), UInt8(i + 1)]) }
        objects.append([0x10, 0x07])
        return DocPromiseBPlist.make(objects)
    }
}

struct DocPromiseRecord: Codable, Equatable {
    var int: Int
    var real: Double
    var text: String
    var flag: Bool
    var blob: Data
    var when: Date
    var list: [Int]
    var table: [String: String]
    var maybe: String?
    var wide: UInt64
    var children: [DocPromiseRecord]?

    static func random(_ rng: inout SeededGenerator, depth: Int = 0) -> DocPromiseRecord {
        let alphabet: [String] = ["a", "b", "key", "é", "日本", "😀", "$null", " ", "x\u{0}y", "<&>", "ﬀ", "Ω"]
        func text() -> String { (0..<rng.int(in: 0...3)).map { _ in rng.pick(alphabet) }.joined() }
        let reals: [Double] = [0, 1, 0.1, -2.5, 1e300, -1e-300, .infinity, -.infinity, 3.141592653589793, 1.0 / 3.0]
        let ints: [Int] = [0, 1, -1, 127, 128, 255, 256, 65_535, 65_536, Int(Int32.max), Int.max, Int.min]
        let wides: [UInt64] = [0, 5, UInt64(Int64.max), UInt64(Int64.max) + 1, .max]
        return DocPromiseRecord(
            int: rng.pick(ints), real: rng.pick(reals), text: text(), flag: rng.chance(0.5),
            blob: Data((0..<rng.int(in: 0...20)).map { _ in UInt8(rng.int(in: 0...255)) }),
            when: Date(timeIntervalSinceReferenceDate: Double(rng.int(in: -40_000_000_000...4_000_000_000)) / 8),
            list: (0..<rng.count(upTo: 8)).map { _ in rng.pick(ints) },
            table: Dictionary((0..<rng.count(upTo: 6)).map { _ in (text(), text()) }, uniquingKeysWith: { a, _ in a }),
            maybe: rng.chance(0.5) ? nil : text(), wide: rng.pick(wides),
            children: depth < 2 && rng.chance(0.4) ? (0..<rng.int(in: 0...3)).map { _ in random(&rng, depth: depth + 1) } : nil)
    }
}

// MARK: - ErrorsAndLimits.md

@Suite struct DocPromiseErrorsAndLimitsTests {
    // ErrorsAndLimits.md: "`location` is a byte offset into a binary file, or a 1-based line and column
    // in XML or OpenStep text." and the example "XML property list: unknown tag <integr> (at line 3, column 19)".
    @Test func xmlErrorsCarryLineAndColumnAsInTheExample() throws {
        let data = DocPromiseOracle.xml("<dict><key>a</key><integr>1</integr></dict>")
        let error = #expect(throws: PlistError.self) { try PlistValue(parsing: data) }
        #expect(error?.location == .line(3, column: 19))
        #expect(error?.description == "XML property list: unknown tag <integr> (at line 3, column 19)")
        #expect(error?.kind == .malformed)
    }

    // ErrorsAndLimits.md: "binary plist: count 1099511627776 is larger than the file (at byte 9)" and
    // ".outOfRange | an offset, reference or count points outside the file or the object table".
    @Test func binaryErrorsCarryByteOffsetsAsInTheExample() throws {
        // The root array at byte 8 has its count as an 8-byte integer object at byte 9: 2^40.
        let data = DocPromiseBPlist.make([[0xAF, 0x13, 0, 0, 1, 0, 0, 0, 0, 0]])
        let error = #expect(throws: PlistError.self) { try PlistValue(parsing: data) }
        #expect(error?.location == .byte(9))
        #expect(error?.description == "binary plist: count 1099511627776 is larger than the file (at byte 9)")
        #expect(error?.kind == .outOfRange)
    }

    // ErrorsAndLimits.md: "print(error) // the message, then "(at byte 40)" or "(at line 3, column 7)""
    @Test func descriptionIsMessageThenLocation() throws {
        let binary = PlistError(.malformed, "bad", at: .byte(40))
        #expect(binary.description == "bad (at byte 40)")
        let text = PlistError(.malformed, "bad", at: .line(3, column: 7))
        #expect(text.description == "bad (at line 3, column 7)")
        #expect(PlistError(.malformed, "bad").description == "bad")
    }

    // ErrorsAndLimits.md: the kind table (one input per kind; each read reports its kind and a location of
    // the right sort: bytes for binary, lines for text).
    @Test(arguments: [
        // Not `unknownFormat` with "bplist00" + one byte: nine bytes are too short for a binary trailer,
        // which is `.truncated` (no input for `.unknownFormat` is pinned down by the article).
        ("truncated", Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30, 0xFF])),
        ("malformed", DocPromiseOracle.xml("<array><strng>a</strng></array>")),
        ("invalidBase64", DocPromiseOracle.xml("<data>!!!*</data>")),
        ("invalidDate", DocPromiseOracle.xml("<date>not a date</date>")),
        ("invalidNumber", DocPromiseOracle.xml("<integer>12x</integer>")),
        ("invalidNumber", DocPromiseOracle.xml("<integer>99999999999999999999999999999999999999999</integer>")),
        ("cycle", DocPromiseBPlist.make([[0xA1, 0x00]])),
        ("outOfRange", DocPromiseBPlist.make([[0xA1, 0x05]])),
        ("invalidString", DocPromiseBPlist.make([[0x61, 0xD8, 0x00]])),   // strict only: checked below
    ] as [(String, Data)])
    func eachKindIsReportedForItsInput(kind: String, data: Data) throws {
        let options = PlistReadOptions(strict: kind == "invalidString")
        let error = #expect(throws: PlistError.self) { try PlistValue(parsing: data, options: options) }
        #expect(error?.kind.rawValue == kind, "\(String(describing: error))")
        if let location = error?.location, !data.isEmpty {
            switch PlistFormat.detect(data) {
            case .binary: if case .byte = location {} else { Issue.record("binary error without a byte offset: \(location)") }
            default: if case .line = location {} else { Issue.record("text error without a line: \(location)") }
            }
        }
    }

    // ErrorsAndLimits.md: "`.malformed` | ... a non-string dictionary key" and "One more file Foundation
    // reads stays refused in both modes: a binary dictionary whose key is not a string".
    @Test func nonStringBinaryKeyRefusedInBothModesThoughFoundationReadsIt() throws {
        let data = try DocPromiseOracle.fixture("invalid/bin_dict_key_not_string.plist")
        for strict in [false, true] {
            let error = #expect(throws: PlistError.self) { try PlistValue(parsing: data, options: PlistReadOptions(strict: strict)) }
            #expect(error?.kind == .malformed)
            if let location = error?.location { if case .byte = location {} else { Issue.record("no byte offset: \(location)") } }
        }
        #expect(throws: Never.self) { _ = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) }
    }

    // ErrorsAndLimits.md: "Errors raised while writing (for example `.unsupportedValue` for an XML date that
    // is not finite, or for writing OpenStep) have location `.none`."
    @Test func writeErrorsHaveNoLocation() throws {
        let nanDate = PlistValue.array([.date(Date(timeIntervalSinceReferenceDate: .nan))])
        let dateError = #expect(throws: PlistError.self) { try nanDate.serialized(as: .xml) }
        #expect(dateError?.kind == .unsupportedValue)
        #expect(dateError?.location == PlistError.Location.none)
        let openStepError = #expect(throws: PlistError.self) { try PlistValue.array([.string("a")]).serialized(as: .openStep) }
        #expect(openStepError?.kind == .unsupportedValue)
        #expect(openStepError?.location == PlistError.Location.none)
    }

    // ErrorsAndLimits.md: "bytes that are not a valid property list: `DecodingError.dataCorrupted` with an
    // empty coding path, whose `underlyingError` is the `PlistError` saying what and where.
    // `PlistError.found(in: error)` fetches it (it also accepts a bare `PlistError`...)"
    @Test func decoderWrapsMalformedInputInDataCorruptedLikeFoundation() throws {
        let data = DocPromiseOracle.xml("<dict><key>a</key><integr>1</integr></dict>")
        var caught: (any Error)?
        do { _ = try PlistDecoder().decode([String: Int].self, from: data) } catch { caught = error }
        guard let error = caught as? DecodingError, case .dataCorrupted(let context) = error else {
            Issue.record("not DecodingError.dataCorrupted: \(String(describing: caught))"); return
        }
        #expect(context.codingPath.isEmpty)
        #expect(context.underlyingError is PlistError)
        let found = PlistError.found(in: error)
        #expect(found?.location == .line(3, column: 19))
        #expect(found?.description.hasSuffix("(at line 3, column 19)") == true)
        let bare = PlistError(.truncated, "x", at: .byte(3))
        #expect(PlistError.found(in: bare) == bare)
        // Foundation's decoder: the same case and the same empty path.
        var foundation: (any Error)?
        do { _ = try PropertyListDecoder().decode([String: Int].self, from: data) } catch { foundation = error }
        guard let fError = foundation as? DecodingError, case .dataCorrupted(let fContext) = fError else {
            Issue.record("Foundation threw \(String(describing: foundation))"); return
        }
        #expect(fContext.codingPath.isEmpty)
    }

    struct DocPromiseNeedsKey: Codable { var a: Int; var b: Int }

    // ErrorsAndLimits.md: "a valid property list that does not match your type: the usual `typeMismatch`,
    // `keyNotFound`, `valueNotFound` or `dataCorrupted`, with the coding path." and the example
    // "DecodingError.typeMismatch: expected value of type Int. Path: [0]."
    @Test func mismatchErrorsMatchFoundationCaseAndPath() throws {
        func describe(_ error: (any Error)?) -> String {
            guard let error = error as? DecodingError else { return "not a DecodingError: \(String(describing: error))" }
            func path(_ p: [any CodingKey]) -> String { p.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") }
            switch error {
            case .typeMismatch(_, let c): return "typeMismatch " + path(c.codingPath)
            case .valueNotFound(_, let c): return "valueNotFound " + path(c.codingPath)
            case .keyNotFound(let k, let c): return "keyNotFound \(k.stringValue) " + path(c.codingPath)
            case .dataCorrupted(let c): return "dataCorrupted " + path(c.codingPath)
            @unknown default: return "other"
            }
        }
        func both<T: Decodable>(_ type: T.Type, _ value: some Encodable) throws -> (String, String) {
            let data = try DocPromiseOracle.foundationBinary(value)
            var ours: (any Error)?, theirs: (any Error)?
            do { _ = try PlistDecoder().decode(type, from: data) } catch { ours = error }
            do { _ = try PropertyListDecoder().decode(type, from: data) } catch { theirs = error }
            return (describe(ours), describe(theirs))
        }
        let mismatch = try both([Int].self, ["a"])
        #expect(mismatch.0 == "typeMismatch 0")
        #expect(mismatch.0 == mismatch.1)
        let missing = try both([DocPromiseNeedsKey].self, [["a": 1]])
        #expect(missing.0 == "keyNotFound b 0")
        #expect(missing.0 == missing.1)
        let null = try both([Int].self, [nil, 1] as [Int?])
        #expect(null.0.hasPrefix("valueNotFound"))
        #expect(null.0 == null.1)
    }

    // ErrorsAndLimits.md: "`PlistEncoder` throws `EncodingError.invalidValue` for a top-level scalar, and
    // `PlistError` of kind `.unsupportedValue` for a value the output format cannot hold (a NaN or infinite
    // date written as XML)."
    @Test func encoderErrors() throws {
        for format in [PlistFormat.binary, .xml] {
            var encoder = PlistEncoder()
            encoder.outputFormat = format
            let error = #expect(throws: EncodingError.self) { try encoder.encode(42) }
            if let error, case .invalidValue = error {} else { Issue.record("not invalidValue: \(String(describing: error))") }
        }
        var xml = PlistEncoder()
        xml.outputFormat = .xml
        for bad in [Double.nan, .infinity] {
            let error = #expect(throws: PlistError.self) { try xml.encode([Date(timeIntervalSinceReferenceDate: bad)]) }
            #expect(error?.kind == .unsupportedValue)
        }
    }

    // ErrorsAndLimits.md: "`maxDepth` bounds the nesting of arrays and dictionaries. Deeper input fails with
    // `.tooDeep` instead of exhausting the stack." and "default 512".
    @Test func maxDepthBoundsNestingInEveryFormatAndEntryPoint() throws {
        let options = PlistReadOptions(maxDepth: 64, maxValueCount: 1_000_000)
        #expect(throws: Never.self) { _ = try PlistValue(parsing: DocPromiseOracle.nestedXML(depth: 64), options: options) }
        let xmlError = #expect(throws: PlistError.self) { try PlistValue(parsing: DocPromiseOracle.nestedXML(depth: 65), options: options) }
        #expect(xmlError?.kind == .tooDeep)
        let binary65 = try DocPromiseOracle.nestedValue(depth: 65).serialized(as: .binary)
        let binaryError = #expect(throws: PlistError.self) { try PlistValue(parsing: binary65, options: options) }
        #expect(binaryError?.kind == .tooDeep)
        #expect(throws: Never.self) { _ = try PlistValue(parsing: DocPromiseOracle.nestedValue(depth: 64).serialized(as: .binary), options: options) }
        // The default is 512.
        #expect(PlistReadOptions().maxDepth == 512)
        #expect(throws: Never.self) { _ = try PlistValue(parsing: DocPromiseOracle.nestedXML(depth: 512)) }
        #expect((try? PlistValue(parsing: DocPromiseOracle.nestedXML(depth: 513))) == nil)
        // Through the decoder's options.
        var decoder = PlistDecoder()
        decoder.options.maxDepth = 64
        #expect(throws: DecodingError.self) { _ = try decoder.decode(PlistDecoderDummy.self, from: binary65) }
        do { _ = try decoder.decode(PlistDecoderDummy.self, from: binary65) } catch {
            #expect(PlistError.found(in: error)?.kind == .tooDeep)
        }
        // Far deeper than any stack: refused, not a crash.
        let huge = DocPromiseOracle.nestedXML(depth: 200_000)
        let hugeError = #expect(throws: PlistError.self) { try PlistValue(parsing: huge) }
        #expect(hugeError?.kind == .tooDeep)
    }

    // ErrorsAndLimits.md: "A reference back to an object still being decoded is a `.cycle` error." and
    // "`.cycle` | a binary object contains itself, directly or through its children".
    @Test func cyclesThroughChildrenAreCycleErrors() throws {
        // array 0 -> dict 1 -> (key 2) value array 0
        let data = DocPromiseBPlist.make([[0xA1, 0x01], [0xD1, 0x02, 0x00], [0x51, 0x6B]])
        let error = #expect(throws: PlistError.self) { try PlistValue(parsing: data) }
        #expect(error?.kind == .cycle)
        #expect(throws: DecodingError.self) { _ = try PlistDecoder().decode(PlistDecoderDummy.self, from: data) }
    }

    // ErrorsAndLimits.md: "`maxValueCount` bounds how many values a file reads into: every scalar, array and
    // dictionary of the result (dictionary keys are not values), each object of a binary file counted at
    // every place it is referenced."
    @Test func maxValueCountCountsSharedObjectsAtEveryReferenceButNotKeys() throws {
        let fanout = DocPromiseOracle.fanout(levels: 3)   // 15 values, 4 objects
        #expect(throws: Never.self) { _ = try PlistValue(parsing: fanout, options: PlistReadOptions(maxValueCount: 15)) }
        let error = #expect(throws: PlistError.self) { try PlistValue(parsing: fanout, options: PlistReadOptions(maxValueCount: 14)) }
        #expect(error?.kind == .tooLarge)
        // A dictionary with two entries: 3 values (the keys do not count).
        let dict = DocPromiseOracle.xml("<dict><key>a</key><integer>1</integer><key>b</key><integer>2</integer></dict>")
        #expect(throws: Never.self) { _ = try PlistValue(parsing: dict, options: PlistReadOptions(maxValueCount: 3)) }
        #expect(throws: PlistError.self) { _ = try PlistValue(parsing: dict, options: PlistReadOptions(maxValueCount: 2)) }
        // "`value.valueCount(limit:)` counts a value the same way"
        let value = try PlistValue(parsing: fanout)
        #expect(value.valueCount() == 15)
        #expect(try PlistValue(parsing: dict).valueCount() == 3)
        #expect(PlistReadOptions().maxValueCount == 1 << 26)
    }

    // ErrorsAndLimits.md: "The limit is counted while the file is checked, before anything is built, so
    // `PlistValue(parsing:)`, `PlistDecoder`, `PlistStreaming.validate` and both converters refuse such a
    // file at once with `.tooLarge`." (the fixture bin_shared_fanout_2_62.plist, 2^61 values)
    @Test(.timeLimit(.minutes(1))) func sharedFanoutRefusedAtOnceByEveryEntryPoint() throws {
        let data = try DocPromiseOracle.fixture("invalid/bin_shared_fanout_2_62.plist")
        let started = ContinuousClock.now
        #expect((#expect(throws: PlistError.self) { try PlistValue(parsing: data) })?.kind == .tooLarge)
        #expect((#expect(throws: PlistError.self) { try PlistStreaming.validate(data) })?.kind == .tooLarge)
        #expect((#expect(throws: PlistError.self) { try PlistStreaming.writeXML(fromBinary: data) { _ in } })?.kind == .tooLarge)
        do { _ = try PlistDecoder().decode(PlistDecoderDummy.self, from: data); Issue.record("decoded") } catch {
            #expect(error is DecodingError)
            #expect(PlistError.found(in: error)?.kind == .tooLarge)
        }
        // XML cannot share, but is counted the same way: the other converter under a lowered limit.
        let xml = DocPromiseOracle.xml("<array>" + String(repeating: "<integer>1</integer>", count: 50) + "</array>")
        let small = PlistReadOptions(maxValueCount: 50)
        #expect((#expect(throws: PlistError.self) { try PlistStreaming.writeBinary(fromXML: xml, options: small) { _ in } })?.kind == .tooLarge)
        #expect(throws: Never.self) { try PlistStreaming.writeBinary(fromXML: xml, options: PlistReadOptions(maxValueCount: 51)) { _ in } }
        #expect(ContinuousClock.now - started < .seconds(3))
    }

    // ErrorsAndLimits.md: "By default PlistCodec reads each as Foundation does ... The nine files in
    // `Fixtures/PlistCodec/tolerated/` are checked against `PropertyListSerialization` on this machine" and
    // "`PlistReadOptions(strict: true)` ... refuses all of them".
    @Test(arguments: ["bin_ascii_high_byte.plist", "bin_header_only.plist", "bin_utf16_lone_high_surrogate.plist",
                      "bin_utf16_lone_low_surrogate.plist", "os_bad_escape_surrogate.plist", "os_unterminated_comment.plist",
                      "xml_bad_date_month_13.plist", "xml_key_in_array.plist", "xml_text_after_root.plist"])
    func toleratedFilesReadAsFoundationDoesAndStrictRefuses(name: String) throws {
        let data = try DocPromiseOracle.fixture("tolerated/" + name)
        let ours = try PlistValue(parsing: data)
        let theirs = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        #expect(DocPromiseOracle.same(ours, theirs), "ours \(ours), Foundation \(theirs)")
        #expect(throws: PlistError.self) { _ = try PlistValue(parsing: data, options: PlistReadOptions(strict: true)) }
        #expect(throws: PlistError.self) { try PlistStreaming.validate(data, options: PlistReadOptions(strict: true)) }
        #expect(throws: Never.self) { try PlistStreaming.validate(data) }
    }

    // ErrorsAndLimits.md: "each high byte as the code point of the same value (`caf\xE9` is "café")" and
    // "the 8-byte `bplist00` header alone (read as OpenStep text: the string `bplist00`)".
    @Test func namedToleratedExamples() throws {
        let cafe = DocPromiseBPlist.make([[0x54] + Array("caf".utf8) + [0xE9]])
        #expect(try PlistValue(parsing: cafe) == .string("café"))
        #expect(try PlistDecoder().decode(String.self, from: cafe) == "café")
        #expect(try PlistValue(parsing: Data("bplist00".utf8)) == .string("bplist00"))
        #expect(throws: PlistError.self) { _ = try PlistValue(parsing: cafe, options: PlistReadOptions(strict: true)) }
    }

    // ErrorsAndLimits.md: "2020-13-01 is 2021-01-01 in both; hour 24 is the next day, February 30 is early
    // March, day 00 is the last day of the month before. Month 00 is December of the year before for
    // `PropertyListDecoder` and January for `PropertyListSerialization`" and "the `.coreFoundation` reader
    // refuses months above 13 (`.invalidDate`)".
    @Test(arguments: ["2020-13-01T00:00:00Z", "2021-03-05T24:00:00Z", "2021-02-30T10:00:00Z", "2021-03-00T00:00:00Z",
                      "2021-00-15T00:00:00Z", "2021-06-15T12:30:45Z"])
    func outOfRangeDateFieldsCarryOverAsEachFoundationReaderDoes(text: String) throws {
        let data = DocPromiseOracle.xml("<array><date>\(text)</date></array>")
        let viaDecoder = try PropertyListDecoder().decode([Date].self, from: data)[0]
        let viaSerialization = try #require(PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [Any])[0] as? Date
        let foundationMode = try PlistValue(parsing: data, options: PlistReadOptions(dates: .foundation))
        let cfMode = try PlistValue(parsing: data, options: PlistReadOptions(dates: .coreFoundation))
        #expect(foundationMode == .array([.date(viaDecoder)]), "\(text)")
        #expect(cfMode == .array([.date(try #require(viaSerialization))]), "\(text)")
        #expect(try PlistDecoder().decode([Date].self, from: data) == [viaDecoder])
        let calendar = { var c = Calendar(identifier: .gregorian); c.timeZone = TimeZone(identifier: "UTC")!; return c }()
        func ymd(_ d: Date) -> [Int] { let c = calendar.dateComponents([.year, .month, .day], from: d); return [c.year!, c.month!, c.day!] }
        switch text {
        case "2020-13-01T00:00:00Z": #expect(ymd(viaDecoder) == [2021, 1, 1]); #expect(ymd(try #require(viaSerialization)) == [2021, 1, 1])
        case "2021-03-05T24:00:00Z": #expect(ymd(viaDecoder) == [2021, 3, 6])
        case "2021-02-30T10:00:00Z": #expect(ymd(viaDecoder) == [2021, 3, 2])
        case "2021-03-00T00:00:00Z": #expect(ymd(viaDecoder) == [2021, 2, 28])
        case "2021-00-15T00:00:00Z":
            #expect(ymd(viaDecoder) == [2020, 12, 15])
            #expect(ymd(try #require(viaSerialization)) == [2021, 1, 15])
        default: break
        }
    }

    @Test func coreFoundationDateReaderRefusesMonthsAbove13() throws {
        let data = DocPromiseOracle.xml("<date>2021-14-01T00:00:00Z</date>")
        let error = #expect(throws: PlistError.self) { try PlistValue(parsing: data, options: PlistReadOptions(dates: .coreFoundation)) }
        #expect(error?.kind == .invalidDate)
    }
}

/// Decodes anything (for driving the decoder's error paths).
struct PlistDecoderDummy: Decodable {
    init(from decoder: any Decoder) throws { _ = try decoder.singleValueContainer() }
}

// MARK: - FormatsAndWriteModes.md

@Suite struct DocPromiseFormatsAndWriteModesTests {
    // FormatsAndWriteModes.md: the detection table: "starts with `bplist`"; "`<?xml`, `<!DOCTYPE` or `<plist`,
    // after optional whitespace and a UTF-8 BOM"; "anything else" is OpenStep; "`detect` only looks at the
    // first bytes and never fails".
    @Test func detectionFollowsTheTable() {
        #expect(PlistFormat.detect(Data("bplist00".utf8)) == .binary)
        #expect(PlistFormat.detect(Data("bplist15xyz".utf8)) == .binary)
        for head in ["<?xml version=\"1.0\"?><plist/>", "<!DOCTYPE plist><plist/>", "<plist version=\"1.0\"/>",
                     "  \n\t<?xml ?>", "\u{FEFF}<plist/>", "\u{FEFF}  <!DOCTYPE plist>"] {
            #expect(PlistFormat.detect(Data(head.utf8)) == .xml, "\(head.debugDescription)")
        }
        for other in ["{ a = b; }", "( a, b )", "<0fbd77>", "", "hello", "\u{FF}"] {
            #expect(PlistFormat.detect(Data(other.utf8)) == .openStep, "\(other.debugDescription)")
        }
        let seed = UInt64.random(in: 0...UInt64.max)
        print("DocPromise detect: seed \(seed)")
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<2_000 {
            let bytes = Data((0..<rng.int(in: 0...40)).map { _ in UInt8(rng.int(in: 0...255)) })
            _ = PlistFormat.detect(bytes)   // never fails
        }
    }

    // FormatsAndWriteModes.md: "a file that is not a property list at all is reported by the OpenStep reader,
    // with a line and column (`expected a value, found byte 0xff (at line 1, column 1)`)". "`PlistValue(parsing:)`
    // and `PlistDecoder.decode(_:from:)` both detect the format for you."
    @Test func garbageIsReportedByTheOpenStepReader() throws {
        let error = #expect(throws: PlistError.self) { try PlistValue(parsing: Data([0xFF, 0x00, 0x01])) }
        #expect(error?.description.hasSuffix("expected a value, found byte 0xff (at line 1, column 1)") == true)
        #expect(error?.location == .line(1, column: 1))
        for data in [try PlistValue.array([.int(1)]).serialized(as: .binary), try PlistValue.array([.int(1)]).serialized(as: .xml)] {
            #expect(try PlistDecoder().decode([Int].self, from: data) == [1])
        }
        #expect(try PlistDecoder().decode([String].self, from: Data("( a, b )".utf8)) == ["a", "b"])
    }

    // FormatsAndWriteModes.md: "It only has strings, data, arrays and dictionaries, so `( 1, 2 )` reads as two
    // strings, `"1"` and `"2"`. Asking to write `.openStep` throws `PlistError` of kind `.unsupportedValue`."
    @Test func openStepReadsStringsAndIsNotWritable() throws {
        #expect(try PlistValue(parsing: Data("( 1, 2 )".utf8)) == .array([.string("1"), .string("2")]))
        #expect(try PlistValue(parsing: Data("{ key = value; d = <0fbd77>; }".utf8))
            == .dictionary(["key": .string("value"), "d": .data(Data([0x0F, 0xBD, 0x77]))]))
        let error = #expect(throws: PlistError.self) { try PlistValue.string("a").serialized(as: .openStep) }
        #expect(error?.kind == .unsupportedValue)
        #expect(throws: PlistError.self) { _ = try PlistValue.string("a").serialized(as: .openStep, mode: .coreFoundation) }
    }

    // FormatsAndWriteModes.md: "`serialized(as:mode:)` writes any value, top-level scalars included (only
    // `PlistEncoder` refuses those...)". Binary is read "any `bplist0?` version".
    @Test func serializedWritesTopLevelScalars() throws {
        for value: PlistValue in [.int(5), .string("x"), .bool(true), .real(0.5), .data(Data([1])), .date(Date(timeIntervalSinceReferenceDate: 10))] {
            for format in [PlistFormat.binary, .xml] {
                for mode in [PlistWriteMode.foundation, .coreFoundation] {
                    let data = try value.serialized(as: format, mode: mode)
                    #expect(try PlistValue(parsing: data) == value)
                }
            }
        }
        var other = Array(try PlistValue.int(5).serialized(as: .binary))
        other[7] = UInt8(ascii: "1")   // bplist01
        #expect(try PlistValue(parsing: Data(other)) == .int(5))
    }

    // FormatsAndWriteModes.md: "`.foundation` (the default) gives `PropertyListEncoder`'s bytes ... `PlistEncoder`
    // always uses this mode".
    @Test func foundationModeIsPropertyListEncodersBytes() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("DocPromise foundation-mode differential: seed \(seed)")
        var rng = SeededGenerator(seed: seed)
        for i in 0..<150 {
            let record = [DocPromiseRecord.random(&rng)]
            let fBinary = try DocPromiseOracle.foundationBinary(record), fXML = try DocPromiseOracle.foundationXML(record)
            #expect(try DocPromiseOracle.ourBinary(record) == fBinary, "record \(i), seed \(seed)")
            #expect(try DocPromiseOracle.ourXML(record) == fXML, "record \(i), seed \(seed)")
            // serialized(as:) with the default mode, from the parsed value, gives the same bytes.
            #expect(try PlistValue(parsing: fXML).serialized(as: .xml) == fXML, "record \(i), seed \(seed)")
        }
    }

    // FormatsAndWriteModes.md: "`.coreFoundation` gives the bytes of CoreFoundation's C writer: what
    // `PropertyListSerialization` ... write" and "CF's XML output depends only on the value, so it always matches."
    @Test func coreFoundationXMLIsPropertyListSerializationsBytes() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("DocPromise CF XML differential: seed \(seed)")
        var rng = SeededGenerator(seed: seed)
        for i in 0..<150 {
            let record = [DocPromiseRecord.random(&rng)]
            let value = try PlistValue(parsing: try DocPromiseOracle.foundationBinary(record))
            let any = try PropertyListSerialization.propertyList(from: try DocPromiseOracle.foundationBinary(record), options: [], format: nil)
            let theirs = try PropertyListSerialization.data(fromPropertyList: any, format: .xml, options: 0)
            let ours = try value.serialized(as: .xml, mode: .coreFoundation)
            #expect(ours == theirs, "record \(i), seed \(seed)\nours:\n\(DocPromiseOracle.text(ours))\ntheirs:\n\(DocPromiseOracle.text(theirs))")
        }
    }

    // FormatsAndWriteModes.md: "XML `<real>` | shortest round-trip (`0.1`, `-0`) | `%.17g` (`0.10000000000000001`),
    // `0.0` for both zeros".
    @Test func xmlRealsPerMode() throws {
        let value = PlistValue.array([.real(0.1), .real(-0.0), .real(0.0)])
        let foundation = DocPromiseOracle.text(try value.serialized(as: .xml))
        #expect(foundation.contains("<real>0.1</real>"))
        #expect(foundation.contains("<real>-0</real>"))
        let cf = DocPromiseOracle.text(try value.serialized(as: .xml, mode: .coreFoundation))
        #expect(cf.contains("<real>0.10000000000000001</real>"))
        #expect(cf.components(separatedBy: "<real>0.0</real>").count == 3)
        #expect(try DocPromiseOracle.foundationXML([0.1, -0.0, 0.0]) == (try value.serialized(as: .xml)))
        let theirs = try PropertyListSerialization.data(fromPropertyList: [0.1, -0.0, 0.0], format: .xml, options: 0)
        #expect(try value.serialized(as: .xml, mode: .coreFoundation) == theirs)
    }

    // FormatsAndWriteModes.md: "XML key order | Swift `String` order | UTF-16 code-unit order" and "The two XML key
    // orders differ only when one key has a character in U+E000–U+FFFF at the position where the other has one at or
    // above U+10000".
    @Test func xmlKeyOrderPerMode() throws {
        let keys = ["\u{FF01}", "\u{1F600}", "b", "a"]
        let dict = PlistValue.dictionary(PlistDictionary(keys.map { ($0, PlistValue.int(1)) }))
        func order(_ data: Data) -> [String] {
            DocPromiseOracle.text(data).components(separatedBy: "<key>").dropFirst().map { String($0.prefix { $0 != "<" }) }
        }
        #expect(order(try dict.serialized(as: .xml)) == ["a", "b", "\u{FF01}", "\u{1F600}"])
        #expect(order(try dict.serialized(as: .xml, mode: .coreFoundation)) == ["a", "b", "\u{1F600}", "\u{FF01}"])
        let swiftDict = Dictionary(uniqueKeysWithValues: keys.map { ($0, 1) })
        #expect(try dict.serialized(as: .xml) == (try DocPromiseOracle.foundationXML(swiftDict)))
        let theirs = try PropertyListSerialization.data(fromPropertyList: swiftDict, format: .xml, options: 0)
        #expect(try dict.serialized(as: .xml, mode: .coreFoundation) == theirs)
        // Without such a pair the two orders agree.
        let plain = PlistValue.dictionary(["é": .int(1), "z": .int(2), "\u{1F600}": .int(3), "A": .int(4)])
        #expect(order(try plain.serialized(as: .xml)) == order(try plain.serialized(as: .xml, mode: .coreFoundation)))
    }

    // FormatsAndWriteModes.md: "XML dates before 1582-10-15 | Julian calendar | proleptic Gregorian calendar".
    @Test func xmlDatesBeforeGregorianReformPerMode() throws {
        for seconds in [-20_000_000_000.0, -13_197_600_000.0, -63_000_000_000.0, 0] {
            let date = Date(timeIntervalSinceReferenceDate: seconds)
            let value = PlistValue.array([.date(date)])
            #expect(try value.serialized(as: .xml) == (try DocPromiseOracle.foundationXML([date])), "\(seconds)")
            let theirs = try PropertyListSerialization.data(fromPropertyList: [date], format: .xml, options: 0)
            #expect(try value.serialized(as: .xml, mode: .coreFoundation) == theirs, "\(seconds)")
            if seconds < -13_197_600_000 {
                #expect(try value.serialized(as: .xml) != (try value.serialized(as: .xml, mode: .coreFoundation)), "\(seconds)")
            }
        }
    }

    // FormatsAndWriteModes.md: "binary offset and reference widths | the fewest bytes that fit (3 bytes is
    // possible) | the smallest of 1, 2, 4, 8 bytes that fits".
    @Test func binaryOffsetWidthsPerMode() throws {
        let strings = (0..<3_000).map { "distinct string number \($0) padded to a length" }
        let value = PlistValue.array(strings.map(PlistValue.string))
        let foundation = try value.serialized(as: .binary)
        let cf = try value.serialized(as: .binary, mode: .coreFoundation)
        #expect(DocPromiseBPlist.trailer(foundation).offsetSize == 3)
        #expect(DocPromiseBPlist.trailer(cf).offsetSize == 4)
        #expect(DocPromiseBPlist.trailer(foundation).refSize == 2)
        #expect(foundation == (try DocPromiseOracle.foundationBinary(strings)))
        let theirs = try PropertyListSerialization.data(fromPropertyList: strings, format: .binary, options: 0)
        #expect(DocPromiseBPlist.trailer(theirs).offsetSize == 4)
        #expect(cf == theirs)
        #expect(try PlistValue(parsing: cf) == value)
    }

    // FormatsAndWriteModes.md: "repeated `true`/`false` in binary | one object each | every repeat is appended again
    // (unreferenced), as CF does".
    @Test func repeatedBooleansPerMode() throws {
        let flags = [true, true, false, true, false]
        let value = PlistValue.array(flags.map(PlistValue.bool))
        let foundation = try value.serialized(as: .binary)
        let cf = try value.serialized(as: .binary, mode: .coreFoundation)
        #expect(DocPromiseBPlist.trailer(foundation).objectCount == 3)
        #expect(DocPromiseBPlist.trailer(cf).objectCount == 6)
        #expect(foundation == (try DocPromiseOracle.foundationBinary(flags)))
        #expect(cf == (try PropertyListSerialization.data(fromPropertyList: flags, format: .binary, options: 0)))
        #expect(try PlistValue(parsing: cf) == value)
    }

    // FormatsAndWriteModes.md: "In both modes an integer's width comes from its `PlistInteger.isWide`, and equal
    // scalars are written once ... Containers are never shared. Objects are numbered depth-first, and a dictionary
    // lists all its keys before all its values. Both readers, ours and Apple's, accept either layout."
    @Test func layoutRules() throws {
        for mode in [PlistWriteMode.foundation, .coreFoundation] {
            let narrow = try PlistValue.integer(PlistInteger(5)).serialized(as: .binary, mode: mode)
            let wide = try PlistValue.integer(PlistInteger(5, isWide: true)).serialized(as: .binary, mode: mode)
            #expect(narrow != wide)
            #expect(try PlistValue(parsing: wide) == .integer(PlistInteger(5, isWide: true)))
            // Equal scalars once, containers never shared: outer, "a", [1], [1], 1.
            let shared = PlistValue.array([.string("a"), .string("a"), .array([.int(1)]), .array([.int(1)])])
            let data = try shared.serialized(as: .binary, mode: mode)
            #expect(DocPromiseBPlist.trailer(data).objectCount == 5)
            // Depth-first: [ {"k": "v"}, "z" ] is array 0, dict 1, "k" 2, "v" 3, "z" 4; the dict lists 2 then 3.
            let nested = PlistValue.array([.dictionary(["k": .string("v")]), .string("z")])
            let layout = try nested.serialized(as: .binary, mode: mode)
            #expect(DocPromiseBPlist.arrayReferences(of: 0, in: layout) == [1, 4])
            let dictAt = DocPromiseBPlist.offset(of: 1, in: layout)
            #expect(Array(layout)[dictAt..<dictAt + 3] == [0xD1, 0x02, 0x03])
            // Apple's reader accepts either layout.
            let any = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            #expect(DocPromiseOracle.same(shared, any))
            #expect(try PropertyListDecoder().decode([Int].self, from: try PlistValue.array([.int(1), .int(1)]).serialized(as: .binary, mode: mode)) == [1, 1])
        }
        // A UInt64 past Int64.max is wide in Foundation's bytes too.
        #expect(try DocPromiseOracle.ourBinary([UInt64.max, 1]) == (try DocPromiseOracle.foundationBinary([UInt64.max, 1])))
        let parsed = try PlistValue(parsing: try DocPromiseOracle.foundationBinary([UInt64.max]))
        if case .array(let items) = parsed, case .integer(let i) = items[0] { #expect(i.isWide) } else { Issue.record("\(parsed)") }
    }
}

// MARK: - DifferencesFromFoundation.md

@Suite struct DocPromiseDifferencesFromFoundationTests {
    // DifferencesFromFoundation.md: "`[0.0, -0.0]` reads back from Foundation as `[0.0, 0.0]`, and `[-0.0, 0.0]` as
    // `[-0.0, -0.0]`. PlistCodec shares reals by bit pattern, so both zeros survive. The bytes differ from
    // Foundation's only when a plist holds both zeros."
    @Test func signedZerosStayApart() throws {
        func signs(_ values: [Double]) -> [Bool] { values.map { $0.sign == .minus } }
        let a = [0.0, -0.0], b = [-0.0, 0.0]
        #expect(signs(try PropertyListDecoder().decode([Double].self, from: try DocPromiseOracle.foundationBinary(a))) == [false, false])
        #expect(signs(try PropertyListDecoder().decode([Double].self, from: try DocPromiseOracle.foundationBinary(b))) == [true, true])
        #expect(signs(try PlistDecoder().decode([Double].self, from: try DocPromiseOracle.ourBinary(a))) == [false, true])
        #expect(signs(try PlistDecoder().decode([Double].self, from: try DocPromiseOracle.ourBinary(b))) == [true, false])
        #expect(signs(try PropertyListDecoder().decode([Double].self, from: try DocPromiseOracle.ourBinary(a))) == [false, true])
        #expect(try DocPromiseOracle.ourBinary(a) != (try DocPromiseOracle.foundationBinary(a)))
        for same in [[0.0, 0.0], [-0.0, -0.0, 1.0], [0.0, 1.0, 0.0]] {
            #expect(try DocPromiseOracle.ourBinary(same) == (try DocPromiseOracle.foundationBinary(same)), "\(same)")
        }
    }

    // DifferencesFromFoundation.md: "`["e\u{301}", "é"]` reads back as two copies of the first. PlistCodec shares
    // strings by their exact bytes, so each reads back as written. Again, the bytes differ only when a plist holds
    // two such strings."
    @Test func canonicallyEquivalentStringsStayApart() throws {
        let pair = ["e\u{301}", "\u{E9}"]
        func scalars(_ s: [String]) -> [[UInt32]] { s.map { $0.unicodeScalars.map(\.value) } }
        #expect(scalars(try PropertyListDecoder().decode([String].self, from: try DocPromiseOracle.foundationBinary(pair)))
            == scalars([pair[0], pair[0]]))
        #expect(scalars(try PlistDecoder().decode([String].self, from: try DocPromiseOracle.ourBinary(pair))) == scalars(pair))
        #expect(scalars(try PropertyListDecoder().decode([String].self, from: try DocPromiseOracle.ourBinary(pair))) == scalars(pair))
        #expect(try DocPromiseOracle.ourBinary(["e\u{301}", "x", "e\u{301}"]) == (try DocPromiseOracle.foundationBinary(["e\u{301}", "x", "e\u{301}"])))
    }

    // DifferencesFromFoundation.md: "PlistCodec sorts the entries, so its output is stable: `[Int: V]` by the integers
    // (`[10: "a", 2: "b", 1: "c"]` is written with keys `"1"`, `"2"`, `"10"`) ... XML output is sorted by both (as
    // strings: `"1"`, `"10"`, `"2"`) and is identical."
    @Test func nonStringKeysSorted() throws {
        let value: [Int: String] = [10: "a", 2: "b", 1: "c"]
        let binary = try DocPromiseOracle.ourBinary(value)
        guard case .dictionary(let dict) = try PlistValue(parsing: binary) else { Issue.record("not a dictionary"); return }
        #expect(dict.keys == ["1", "2", "10"])
        // The same bytes for every insertion order of the same contents.
        var other: [Int: String] = [:]
        for key in [1, 2, 10].reversed() { other[key] = value[key] }
        other.reserveCapacity(100)
        #expect(try DocPromiseOracle.ourBinary(other) == binary)
        let xml = try DocPromiseOracle.ourXML(value)
        #expect(xml == (try DocPromiseOracle.foundationXML(value)))
        guard case .dictionary(let xmlDict) = try PlistValue(parsing: xml) else { Issue.record("not a dictionary"); return }
        #expect(xmlDict.keys == ["1", "10", "2"])
        #expect(try PropertyListDecoder().decode([Int: String].self, from: binary) == value)
    }

    // DifferencesFromFoundation.md: "Everything else, including sharing, object order, widths and the odd `$null`,
    // matches `PropertyListEncoder`."
    @Test func everythingElseMatchesPropertyListEncoder() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("DocPromise everything-else differential: seed \(seed)")
        var rng = SeededGenerator(seed: seed)
        let records = (0..<60).map { _ in DocPromiseRecord.random(&rng) }
        #expect(try DocPromiseOracle.ourBinary(records) == (try DocPromiseOracle.foundationBinary(records)), "seed \(seed)")
        #expect(try DocPromiseOracle.ourXML(records) == (try DocPromiseOracle.foundationXML(records)), "seed \(seed)")
        let optionals: [String?] = ["x", nil, nil, "$null", "x"]
        #expect(try DocPromiseOracle.ourBinary(optionals) == (try DocPromiseOracle.foundationBinary(optionals)))
        #expect(try PlistDecoder().decode([String?].self, from: try DocPromiseOracle.ourBinary(["x", nil])) == ["x", nil])
    }

    // DifferencesFromFoundation.md: "a string equal to `"$null"` next to an encoded `nil`. `PropertyListEncoder`
    // writes them as two objects ... the rewritten file holds one object where Foundation's had two. Encoding the
    // original Codable value with `PlistEncoder` does give Foundation's bytes."
    @Test func dollarNullNextToNil() throws {
        let value: [String?] = ["$null", nil]
        let foundation = try DocPromiseOracle.foundationBinary(value)
        #expect(try DocPromiseOracle.ourBinary(value) == foundation)
        let rewritten = try PlistValue(parsing: foundation).serialized(as: .binary)
        #expect(DocPromiseBPlist.trailer(foundation).objectCount == 3)
        #expect(DocPromiseBPlist.trailer(rewritten).objectCount == 2)
    }

    // DifferencesFromFoundation.md: "A NUL character in an XML string matches too: ... Apple's writers put the raw
    // byte in the file and Apple's readers read it back, so PlistCodec does both too."
    @Test func nulInXMLString() throws {
        let value = ["a\u{0}b"]
        let ours = try DocPromiseOracle.ourXML(value)
        #expect(ours == (try DocPromiseOracle.foundationXML(value)))
        #expect(ours.contains(0))
        #expect(try PlistDecoder().decode([String].self, from: ours) == value)
        #expect(try PropertyListDecoder().decode([String].self, from: ours) == value)
    }
}
