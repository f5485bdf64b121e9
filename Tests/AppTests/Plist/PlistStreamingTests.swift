import Foundation
import PlistCodec
import Testing
import TestSupport

/// `PlistStreaming` (the tree-free lint and binary-to-XML paths `plist` uses) against the tree path.
@Suite("PlistStreaming")
struct PlistStreamingTests {
    static let binaryFixtures = (Fixtures.list("PlistCodec/apple/cfpropertylist-ruby")
        + Fixtures.list("PlistCodec/apple/cpython") + Fixtures.list("PlistCodec/apple/swift-foundation")
        + Fixtures.list("PlistCodec/recorded"))
        .filter { PlistFormat.detect((try? Fixtures.data($0)) ?? Data()) == .binary }

    @Test func thereAreBinaryFixtures() {
        #expect(Self.binaryFixtures.count >= 30)
    }

    @Test(arguments: binaryFixtures, [PlistWriteMode.foundation, .coreFoundation])
    func streamedXMLEqualsTreeXML(_ path: String, _ mode: PlistWriteMode) throws {
        let data = try Fixtures.data(path)
        let tree = try PlistValue(parsing: data).serialized(as: .xml, mode: mode)
        for chunkSize in [1, 100, 1 << 20] {
            var chunks: [Data] = []
            try PlistStreaming.writeXML(fromBinary: data, mode: mode, chunkSize: chunkSize) { chunks.append($0) }
            let streamed = chunks.reduce(Data(), +)
            if let difference = Fixtures.firstDifference(streamed, tree) {
                Issue.record("\(path), chunk \(chunkSize): \(difference)")
            }
        }
        try PlistStreaming.validate(data)
    }

    @Test func duplicateKeysKeepFirstPositionAndLastValue() throws {
        // {"b": 1, "a": 2, "b": 3} written by hand: the reader keeps b first with value 3.
        var bytes: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        func object(_ b: [UInt8]) { offsets.append(bytes.count); bytes += b }
        object([0xD3, 1, 2, 1, 3, 4, 5])  // dict: keys 1 2 1, values 3 4 5
        object([0x51, 0x62])              // "b"
        object([0x51, 0x61])              // "a"
        object([0x10, 1]); object([0x10, 2]); object([0x10, 3])
        let table = bytes.count
        bytes += offsets.map(UInt8.init)
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, UInt8(offsets.count)] + [UInt8](repeating: 0, count: 8)
            + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        let data = Data(bytes)
        let value = try PlistValue(parsing: data)
        #expect(value == .dictionary(["b": .int(3), "a": .int(2)]))
        var streamed = Data()
        try PlistStreaming.writeXML(fromBinary: data, mode: .coreFoundation) { streamed += $0 }
        #expect(streamed == (try value.serialized(as: .xml, mode: .coreFoundation)))
    }

    static let invalidFiles = Fixtures.list("PlistCodec/invalid", suffix: ".plist")

    @Test(arguments: invalidFiles)
    func validateThrowsWhatTheReaderThrows(_ path: String) throws {
        let data = try Fixtures.data(path)
        let expected: PlistError
        do {
            _ = try PlistValue(parsing: data)
            Issue.record("\(path) parsed")
            return
        } catch let error as PlistError {
            expected = error
        }
        #expect(throws: expected) { try PlistStreaming.validate(data) }
        if PlistFormat.detect(data) == .binary {
            var emitted = 0
            #expect(throws: expected) {
                try PlistStreaming.writeXML(fromBinary: data, mode: .coreFoundation) { emitted += $0.count }
            }
            #expect(emitted == 0, "a malformed file emitted \(emitted) bytes")
        }
    }

    @Test func writeXMLRefusesText() throws {
        let xml = try Fixtures.data("Apps/plist/inputs/Info.plist")
        #expect(throws: PlistError.self) { try PlistStreaming.writeXML(fromBinary: xml) { _ in } }
    }
}
