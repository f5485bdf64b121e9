import Foundation
@testable import PlistCodec
import TestSupport
import Testing

/// Each format has one scanner, generic over its sink: these drive the scanners with sinks that only
/// record what they are told, so the events themselves (order, sharing, expansion) are pinned down.
@Suite("Scanner events")
struct ScannerSinkTests {
    /// Writes down every event of the XML scanner.
    struct XMLRecorder: XMLPlistSink {
        var events: [String] = []
        mutating func openContainer(isDictionary: Bool) { events.append(isDictionary ? "dict" : "array") }
        mutating func key(_ key: String) { events.append("key \(key)") }
        mutating func value(_ value: PlistValue, end: Int) { events.append("\(value.kindName) @\(end)") }
        mutating func closeContainer(end: Int) { events.append("close @\(end)") }
    }

    /// Writes down every event of the binary walker; expands shared objects or not, as told.
    struct BinaryRecorder: BinaryPlistSink {
        var expandsSharedObjects: Bool
        var events: [String] = []
        mutating func scalar(_ value: PlistValue, object: Int) { events.append("\(object): \(value.kindName)") }
        mutating func shared(object: Int) { events.append("\(object): again") }
        mutating func openContainer(object: Int, isDictionary: Bool, count: Int) {
            events.append("\(object): \(isDictionary ? "dict" : "array") of \(count)")
        }
        mutating func valueOrder(count: Int) -> [Int] {
            events.append("values")
            return Array((0..<count).reversed())
        }
        mutating func closeContainer(object: Int) { events.append("\(object): close") }
    }

    func scanXML<Sink: XMLPlistSink>(_ text: String, into sink: Sink, options: PlistReadOptions = PlistReadOptions()) throws -> Sink {
        try TextCursor.withUTF8Text(Data(text.utf8)) { buffer, base in
            var scanner = XMLPlistScanner(text: buffer, base: base, options: options, sink: sink)
            try scanner.scanDocument()
            return scanner.sink
        }
    }

    @Test func xmlScannerHandsOnEachElementOnceInDocumentOrder() throws {
        let text = "<plist><dict><key>a</key><array><integer>1</integer><dict/></array><key>b</key><true/></dict></plist>"
        let recorder = try scanXML(text, into: XMLRecorder())
        #expect(recorder.events == ["dict", "key a", "array", "integer @52", "dict @59", "close @67", "key b",
                                    "bool @86", "close @93"])
    }

    @Test func xmlScannerChecksBeforeTheSinkHearsOfIt() throws {
        // The dictionary ends after a key: the scanner throws, whatever the sink is.
        let text = "<plist><dict><key>lonely</key></dict></plist>"
        let expected = PlistError(.malformed, "XML property list: <dict> ends after <key>lonely</key> without its value",
                                  at: .line(1, column: 31))
        #expect(throws: expected) { _ = try scanXML(text, into: XMLRecorder()) }
        #expect(throws: expected) { _ = try scanXML(text, into: XMLPlistValidatingSink()) }
        #expect(throws: expected) { try PlistValue(parsing: Data(text.utf8)) }
    }

    /// `[A, A, {"k": "s"}]` where array A (`[1]`) is referenced twice: legal, if unusual.
    static let sharedArrayFile: Data = {
        var bytes: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        func object(_ b: [UInt8]) { offsets.append(bytes.count); bytes += b }
        object([0xA3, 1, 1, 3])   // 0: [1, 1, 3]
        object([0xA1, 2])         // 1: [2]
        object([0x10, 7])         // 2: 7
        object([0xD1, 4, 5])      // 3: {4: 5}
        object([0x51, 0x6B])      // 4: "k"
        object([0x51, 0x73])      // 5: "s"
        let table = bytes.count
        bytes += offsets.map(UInt8.init)
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, UInt8(offsets.count)] + [UInt8](repeating: 0, count: 8)
            + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        return Data(bytes)
    }()

    @Test func binaryWalkerReportsASharedObjectOnceOrSpellsItOut() throws {
        let doc = try BinaryPlistDocument(Self.sharedArrayFile)
        let shared = try doc.walk(PlistReadOptions(), into: BinaryRecorder(expandsSharedObjects: false))
        #expect(shared.events == ["0: array of 3", "1: array of 1", "2: integer", "1: close", "1: again",
                                  "3: dict of 1", "4: string", "values", "5: string", "3: close", "0: close"])
        let expanded = try doc.walk(PlistReadOptions(), into: BinaryRecorder(expandsSharedObjects: true))
        #expect(expanded.events == ["0: array of 3", "1: array of 1", "2: integer", "1: close", "1: array of 1",
                                    "2: integer", "1: close", "3: dict of 1", "4: string", "values", "5: string",
                                    "3: close", "0: close"])
        let value = try PlistValue(parsing: Self.sharedArrayFile)
        #expect(value == .array([.array([.int(7)]), .array([.int(7)]), .dictionary(["k": .string("s")])]))
    }

    @Test func binaryWalkerVisitsDictionaryValuesInTheSinksOrder() throws {
        // {"a": 1, "b": 2}: keys in file order, then the values the sink asks for, last first.
        var bytes: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        func object(_ b: [UInt8]) { offsets.append(bytes.count); bytes += b }
        object([0xD2, 1, 2, 3, 4]); object([0x51, 0x61]); object([0x51, 0x62]); object([0x10, 1]); object([0x10, 2])
        let table = bytes.count
        bytes += offsets.map(UInt8.init)
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, UInt8(offsets.count)] + [UInt8](repeating: 0, count: 8)
            + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        let doc = try BinaryPlistDocument(Data(bytes))
        let recorder = try doc.walk(PlistReadOptions(), into: BinaryRecorder(expandsSharedObjects: false))
        #expect(recorder.events == ["0: dict of 2", "1: string", "2: string", "values", "4: integer", "3: integer", "0: close"])
    }

    @Test func binaryWalkerFailsAlikeForEverySink() throws {
        // Object 1 holds itself: a cycle, found by the walker before any sink could loop.
        var bytes = [UInt8](Self.sharedArrayFile)
        bytes[13] = 1   // object 1's element: itself
        let doc = try BinaryPlistDocument(Data(bytes))
        let expected = PlistError(.cycle, "binary plist: object 1 contains itself", at: .byte(13))
        #expect(throws: expected) { _ = try doc.walk(PlistReadOptions(), into: BinaryRecorder(expandsSharedObjects: false)) }
        #expect(throws: expected) { try BinaryPlistValidator.validate(doc, options: PlistReadOptions()) }
        #expect(throws: expected) { try PlistValue(parsing: Data(bytes)) }
        #expect(throws: expected) { try PlistStreaming.writeXML(fromBinary: Data(bytes)) { _ in } }
    }
}
