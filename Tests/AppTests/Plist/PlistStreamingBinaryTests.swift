import Foundation
import PlistCodec
import Testing
import TestSupport

/// `PlistStreaming.writeBinary(fromXML:)` against the tree path: the same bytes, the same errors.
@Suite("PlistStreaming XML to binary")
struct PlistStreamingBinaryTests {
    static let xmlFixtures = (Fixtures.list("PlistCodec/apple/cpython") + Fixtures.list("PlistCodec/apple/swift-foundation")
        + Fixtures.list("PlistCodec/recorded") + Fixtures.list("Apps/plist/inputs"))
        .filter { PlistFormat.detect((try? Fixtures.data($0)) ?? Data()) == .xml }

    /// Every Apple binary file, as XML (so dictionaries, UIDs and every scalar kind go through XML).
    static let binaryFixtures = (Fixtures.list("PlistCodec/apple/cfpropertylist-ruby") + Fixtures.list("PlistCodec/apple/cpython"))
        .filter { PlistFormat.detect((try? Fixtures.data($0)) ?? Data()) == .binary }

    func streamed(_ xml: Data, _ mode: PlistWriteMode, chunkSize: Int = 1 << 20) throws -> Data {
        var chunks: [Data] = []
        try PlistStreaming.writeBinary(fromXML: xml, mode: mode, chunkSize: chunkSize) { chunks.append($0) }
        return chunks.reduce(Data(), +)
    }

    func expectSameAsTree(_ xml: Data, _ what: String) throws {
        for mode in [PlistWriteMode.foundation, .coreFoundation] {
            let tree = try PlistValue(parsing: xml).serialized(as: .binary, mode: mode)
            for chunkSize in [1, 1 << 20] {
                if let difference = Fixtures.firstDifference(try streamed(xml, mode, chunkSize: chunkSize), tree) {
                    Issue.record("\(what) (\(mode), chunk \(chunkSize)): \(difference)")
                }
            }
        }
    }

    @Test func thereAreFixtures() {
        #expect(Self.xmlFixtures.count >= 10)
        #expect(Self.binaryFixtures.count >= 26)
    }

    @Test(arguments: xmlFixtures)
    func xmlFixtureGivesTheTreeBytes(_ path: String) throws {
        try expectSameAsTree(Fixtures.data(path), path)
    }

    @Test(arguments: binaryFixtures)
    func binaryFixtureThroughXMLGivesTheTreeBytes(_ path: String) throws {
        let xml = try PlistValue(parsing: Fixtures.data(path)).serialized(as: .xml, mode: .coreFoundation)
        try expectSameAsTree(xml, path)
    }

    @Test func rootArraysOfArraysAndRepeatsGiveTheTreeBytes() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("rootArraysOfArraysAndRepeatsGiveTheTreeBytes seed: 0x\(String(seed, radix: 16))")
        var random = RandomValues(seed: seed, forXML: true)
        func scalar() -> PlistValue {
            switch random.rng.next() % 8 {
            case 0: return .string(random.string())
            case 1: return .int(Int(random.integer(Int32.self)))
            case 2: return .integer(PlistInteger(random.integer(UInt64.self)))
            case 3: return .real(random.double())
            case 4: return .bool(random.rng.next() % 2 == 0)
            case 5: return .date(Date(timeIntervalSinceReferenceDate: Double(random.integer(Int32.self))))
            case 6: return .data(random.data())
            default: return .uid(UInt64(random.integer(UInt16.self)))
            }
        }
        func value(_ depth: Int) -> PlistValue {
            guard depth < 4 else { return scalar() }
            switch random.rng.next() % 4 {
            case 0: return .array((0..<Int(random.rng.next() % 5)).map { _ in value(depth + 1) })
            case 1:
                var dictionary = PlistDictionary()
                for _ in 0..<Int(random.rng.next() % 5) { dictionary[random.string()] = value(depth + 1) }
                return .dictionary(dictionary)
            default: return scalar()
            }
        }
        for round in 0..<40 {
            let root: PlistValue = round % 4 == 3 ? value(0) : .array((0..<12).map { _ in value(1) })
            let xml = try root.serialized(as: .xml, mode: .coreFoundation)
            try expectSameAsTree(xml, "random round \(round), seed 0x\(String(seed, radix: 16))")
        }
    }

    static let invalidXML = Fixtures.list("PlistCodec/invalid", suffix: ".plist")
        .filter { PlistFormat.detect((try? Fixtures.data($0)) ?? Data()) == .xml }

    @Test(arguments: invalidXML)
    func invalidXMLThrowsWhatTheReaderThrows(_ path: String) throws {
        let data = try Fixtures.data(path)
        let expected: PlistError
        do {
            _ = try PlistValue(parsing: data)
            Issue.record("\(path) parsed")
            return
        } catch let error as PlistError {
            expected = error
        }
        var emitted = 0
        #expect(throws: expected) {
            try PlistStreaming.writeBinary(fromXML: data) { emitted += $0.count }
        }
        #expect(emitted == 0)
    }
}
