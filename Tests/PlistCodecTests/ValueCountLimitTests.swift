import Foundation
import PlistCodec
import Testing
import TestSupport

/// `PlistReadOptions.maxValueCount`: a file is refused when the value it reads into, every shared
/// object counted wherever it is referenced, holds more values than the limit, by every entry point
/// that reads it, before anything that walks the value can run for the size of its expansion.
@Suite struct ValueCountLimitTests {
    /// A binary file of `levels` arrays, each holding the next one twice, the last an empty array:
    /// `2^(levels + 1) - 1` values once shared arrays are expanded (as `make-invalid.py`'s `fanout`).
    static func fanOut(levels: Int) -> Data {
        precondition(levels < 250, "one-byte references")
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for level in 0..<levels {
            offsets.append(bytes.count)
            bytes += [0xA2, UInt8(level + 1), UInt8(level + 1)]
        }
        offsets.append(bytes.count)
        bytes.append(0xA0)
        let table = bytes.count
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        bytes += [0, 0, 0, 0, 0, 0, 2, 1]
        for field in [UInt64(levels + 1), 0, UInt64(table)] { bytes += withUnsafeBytes(of: field.bigEndian, Array.init) }
        return Data(bytes)
    }

    static func options(_ limit: Int) -> PlistReadOptions { PlistReadOptions(maxValueCount: limit) }

    /// Every entry point that reads `data` throws `.tooLarge` under `limit`; returns the reader's error.
    @discardableResult
    static func expectRefusedEverywhere(
        _ data: Data, limit: Int, readAsText: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> PlistError {
        let options = options(limit)
        let read = try #require(throws: PlistError.self, sourceLocation: sourceLocation) {
            try PlistValue(parsing: data, options: options)
        }
        #expect(read.kind == .tooLarge, "\(read)", sourceLocation: sourceLocation)
        #expect(throws: read, sourceLocation: sourceLocation) { try PlistStreaming.validate(data, options: options) }

        var decoder = PlistDecoder()
        decoder.options = options
        decoder.userInfo[InvalidInputTests.WalkBudget.key] = InvalidInputTests.WalkBudget(limit: 100_000)
        let thrown = try #require(throws: DecodingError.self, sourceLocation: sourceLocation) {
            try decoder.decode(InvalidInputTests.Walk.self, from: data)
        }
        #expect(PlistError.found(in: thrown) == read, "\(thrown)", sourceLocation: sourceLocation)

        var emitted = 0
        switch PlistFormat.detect(data) {
        case .binary:
            #expect(throws: read, sourceLocation: sourceLocation) {
                try PlistStreaming.writeXML(fromBinary: data, options: options) { emitted += $0.count }
            }
        case .xml:
            #expect(throws: read, sourceLocation: sourceLocation) {
                try PlistStreaming.writeBinary(fromXML: data, options: options) { emitted += $0.count }
            }
        case .openStep:
            break
        }
        #expect(emitted == 0, "a refused file wrote \(emitted) bytes", sourceLocation: sourceLocation)
        if readAsText {
            #expect(read.location == .line(1, column: 19), "\(read)", sourceLocation: sourceLocation)
        } else {
            InvalidInputTests.check(read, expected: [.tooLarge], input: data, sourceLocation: sourceLocation)
        }
        return read
    }

    @Test(arguments: ["bin_shared_fanout_2_62", "bin_shared_fanout_found"])
    func fanOutFixturesAreRefusedByDefault(_ name: String) throws {
        let data = try Fixtures.data("PlistCodec/invalid/\(name).plist")
        let error = try Self.expectRefusedEverywhere(data, limit: PlistReadOptions.defaultMaxValueCount)
        #expect(error.description.contains("maxValueCount"), "the message names the option to raise: \(error)")
    }

    /// The limit is not what keeps checking linear: with it lifted, a fan-out whose second entry is
    /// malformed is still refused at once, because the walk checks each shared array once.
    @Test func checkingStaysLinearWithoutTheLimit() throws {
        let data = try Fixtures.data("PlistCodec/invalid/bin_fanout_bomb.plist")
        let error = try #require(throws: PlistError.self) { try PlistValue(parsing: data, options: Self.options(.max)) }
        #expect(error.kind == .malformed, "\(error)")
        #expect(throws: error) { try PlistStreaming.validate(data, options: Self.options(.max)) }
    }

    /// The limit is the exact number of values read: at it the file reads (into that many), one
    /// below it every entry point refuses.
    @Test(arguments: [0, 1, 4, 12])
    func theLimitIsExactForSharedArrays(_ levels: Int) throws {
        let data = Self.fanOut(levels: levels)
        let total = (1 << (levels + 1)) - 1
        let value = try PlistValue(parsing: data, options: Self.options(total))
        #expect(value.valueCount(limit: total) == total)
        try PlistStreaming.validate(data, options: Self.options(total))
        var decoder = PlistDecoder()
        decoder.options = Self.options(total)
        _ = try decoder.decode(InvalidInputTests.Walk.self, from: data)
        var xml = Data()
        try PlistStreaming.writeXML(fromBinary: data, options: Self.options(total)) { xml += $0 }
        #expect(try PlistValue(parsing: xml) == value)

        try Self.expectRefusedEverywhere(data, limit: total - 1)
    }

    /// Text cannot share, but the limit still holds, so a caller's bound covers every format:
    /// the value below has 7 values (keys are not values) in each of them.
    @Test(arguments: PlistFormat.allCases)
    func theLimitCountsValuesInEveryFormat(_ format: PlistFormat) throws {
        let data: Data
        switch format {
        case .openStep:
            data = Data("{ a = (1, 2, x); b = yes; c = {}; }\n".utf8)
        case .binary, .xml:
            let value: PlistValue = .dictionary([
                "a": .array([.int(1), .int(2), .string("x")]), "b": .bool(true), "c": .dictionary([:]),
            ])
            data = try value.serialized(as: format)
        }
        #expect(PlistFormat.detect(data) == format)
        let value = try PlistValue(parsing: data, options: Self.options(7))
        #expect(value.valueCount(limit: 7) == 7)
        try PlistStreaming.validate(data, options: Self.options(7))
        try Self.expectRefusedEverywhere(data, limit: 6)
    }

    /// A file that starts `bplist` without a binary trailer is read as OpenStep text, as Foundation
    /// reads it; past the limit, the error is the limit's, not the binary reader's account of the trailer.
    @Test func textReadAfterABinaryHeaderCountsToo() throws {
        let data = Data("bplist00 = (a, b, c);\n".utf8)
        #expect(PlistFormat.detect(data) == .binary)
        let value = try PlistValue(parsing: data, options: Self.options(5))
        #expect(value == .dictionary(["bplist00": .array([.string("a"), .string("b"), .string("c")])]))
        // The fifth value (the file's dictionary, the array, `a`, `b`, `c`) is `c`, at column 19.
        try Self.expectRefusedEverywhere(data, limit: 4, readAsText: true)
    }

    /// An OpenStep strings file is one dictionary: `a = b;` and the short `c;` (`c = c;`) each add one value.
    @Test func valueCountCountsEveryPlaceAContainerAppears() {
        let shared: PlistValue = .array([.int(1), .string("x")])
        let value: PlistValue = .dictionary(["a": shared, "b": .array([shared, shared]), "c": .bool(true)])
        #expect(value.valueCount() == 1 + 3 + (1 + 2 * 3) + 1)
        #expect(value.valueCount(limit: 5) == 6)
        #expect(PlistValue.int(0).valueCount(limit: 0) == 1)
    }

    @Test func stringsFilesCountTheirImplicitDictionary() throws {
        let data = Data("a = b;\nc;\n".utf8)
        let value = try PlistValue(parsing: data, options: Self.options(3))
        #expect(value == .dictionary(["a": .string("b"), "c": .string("c")]))
        let error = try #require(throws: PlistError.self) { try PlistValue(parsing: data, options: Self.options(2)) }
        #expect(error.kind == .tooLarge)
        #expect(error.location == .line(2, column: 1))

        // Only space is an empty strings file: one value, found by the fuzz targets' exactness check.
        let blank = Data("\n".utf8)
        #expect(try PlistValue(parsing: blank, options: Self.options(1)) == .dictionary([:]))
        let none = try #require(throws: PlistError.self) { try PlistValue(parsing: blank, options: Self.options(0)) }
        #expect(none.kind == .tooLarge)
    }
}
