import Foundation
import PlistCodec
import Testing
import TestSupport

/// What Foundation repairs, checked in every entry point (tree reader, validator, decoder, both
/// streaming converters) and beyond the nine fixtures: every high byte, text that starts like a binary
/// file, a `<key>` where a dictionary's value belongs, surrogate escapes in every position.
extension ToleratedInputTests {
    static let strict = PlistReadOptions(strict: true)

    /// Strict reading refuses each file with one error, the same from every entry point.
    @Test(arguments: files)
    func strictRefusalIsTheSameEverywhere(_ path: String) throws {
        let data = try Fixtures.data(path)
        let refusal = try #require(throws: PlistError.self) { try PlistValue(parsing: data, options: Self.strict) }
        InvalidInputTests.check(refusal, expected: [try #require(Self.strictKinds[Self.name(path)])], input: data)
        #expect(throws: refusal) { try PlistStreaming.validate(data, options: Self.strict) }
        var decoder = PlistDecoder()
        decoder.options.strict = true
        do {
            _ = try decoder.decode(InvalidInputTests.Walk.self, from: data)
            Issue.record("\(path): the strict decoder read it")
        } catch {
            #expect(error is DecodingError, "\(path): \(error)")
            #expect(PlistError.found(in: error) == refusal, "\(path): \(error)")
        }
        var emitted = 0
        switch PlistFormat.detect(data) {
        case .binary:
            #expect(throws: refusal) { try PlistStreaming.writeXML(fromBinary: data, options: Self.strict) { emitted += $0.count } }
        case .xml:
            #expect(throws: refusal) { try PlistStreaming.writeBinary(fromXML: data, options: Self.strict) { emitted += $0.count } }
        case .openStep:
            break
        }
        #expect(emitted == 0)
    }

    /// By default the streaming converters write what the tree path writes, in both modes, and the
    /// decoder reads the file.
    @Test(arguments: files, [PlistWriteMode.foundation, .coreFoundation])
    func streamingReadsWhatTheTreeReads(_ path: String, mode: PlistWriteMode) throws {
        let data = try Fixtures.data(path)
        let value = try PlistValue(parsing: data)
        switch PlistFormat.detect(data) {
        case .binary:
            var xml = Data()
            try PlistStreaming.writeXML(fromBinary: data, mode: mode) { xml += $0 }
            #expect(xml == (try value.serialized(as: .xml, mode: mode)))
        case .xml:
            var binary = Data()
            try PlistStreaming.writeBinary(fromXML: data, mode: mode) { binary += $0 }
            #expect(binary == (try value.serialized(as: .binary, mode: mode)))
        case .openStep:
            break
        }
        var decoder = PlistDecoder()
        decoder.userInfo[InvalidInputTests.WalkBudget.key] = InvalidInputTests.WalkBudget(limit: 1_000)
        _ = try decoder.decode(InvalidInputTests.Walk.self, from: data)
    }

    // MARK: Binary

    /// A binary file with one ASCII-marked string of `bytes` inside an array.
    static func binaryArray(ofASCIIString bytes: [UInt8]) -> Data {
        precondition(bytes.count < 15)
        var file = [UInt8]("bplist00".utf8) + [0xA1, 0x01] + [0x50 | UInt8(bytes.count)] + bytes
        let table = file.count
        file += [8, 10]
        file += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [0, 0, 0, 0, 0, 0, 0, 0]
            + [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        return Data(file)
    }

    /// Every byte from 0x80 to 0xFF under the ASCII marker reads as the code point of the same value,
    /// as Foundation reads it, in the decoder too; strict reading points at the byte. Written back,
    /// such a string is UTF-16 (`6n`), as Foundation writes any non-ASCII string.
    @Test func everyHighByteReadsAsItsCodePoint() throws {
        for byte in UInt8(0x80)...UInt8(0xFF) {
            let data = Self.binaryArray(ofASCIIString: [0x41, byte, 0x42])
            let expected = "A" + String(Unicode.Scalar(byte)) + "B"
            #expect(try PlistValue(parsing: data) == .array([.string(expected)]))
            let foundation = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String]
            #expect(foundation == [expected], "0x\(String(byte, radix: 16))")
            #expect(try PlistDecoder().decode([String].self, from: data) == [expected])
            let error = try #require(throws: PlistError.self) { try PlistValue(parsing: data, options: Self.strict) }
            #expect(error.kind == .invalidString && error.location == .byte(12), "\(error)")
        }
        let rewritten = try PlistValue(parsing: Self.binaryArray(ofASCIIString: Array("caf".utf8) + [0xE9])).serialized(as: .binary)
        #expect(rewritten.contains(0x64), "a UTF-16 string of 4 code units")
        #expect(try PlistValue(parsing: rewritten) == .array([.string("café")]))
    }

    /// Bytes that start like a binary file but have no binary trailer are OpenStep text to
    /// Foundation, however long; strict reading gives the binary reader's error.
    @Test(arguments: [
        "bplist0", "bplist00 ", "bplist15", "bplist00 = 1;",
        "bplist00 = \"a value long enough to pass the forty-two byte minimum\";",
        "bplist00\n/* a comment that makes this file longer than forty-two bytes */\n",
    ])
    func textThatStartsLikeBinary(_ text: String) throws {
        let data = Data(text.utf8)
        expectSameAsFoundation(data) { try PlistValue(parsing: $0) }
        try PlistStreaming.validate(data)
        var xml = Data()
        try PlistStreaming.writeXML(fromBinary: data) { xml += $0 }
        #expect(xml == (try PlistValue(parsing: data).serialized(as: .xml)))
        let strictError = try #require(throws: PlistError.self) { try PlistValue(parsing: data, options: Self.strict) }
        #expect(strictError.location == .byte(0) || strictError.location == .byte(data.count)
            || strictError.location == .byte(data.count - 32 + 6), "\(strictError)")
        #expect(throws: strictError) { try PlistStreaming.validate(data, options: Self.strict) }
    }

    /// What is neither binary nor text stays the binary reader's error, as Foundation refuses it.
    @Test func binaryGarbageIsNotText() throws {
        let text = "bplist00 ( not a strings file but long enough to be checked as binary first )"
        let error = try #require(throws: PlistError.self) { try PlistValue(parsing: Data(text.utf8)) }
        #expect(error.message.hasPrefix("binary plist:"), "\(error)")
        #expect((try? PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil)) == nil)
    }

    // MARK: XML

    /// A `<key>` where a value belongs is a string; anything after the root is ignored.
    @Test(arguments: [
        "<plist><key>a</key></plist>",
        "<plist><dict><key>a</key><key>b</key></dict></plist>",
        "<plist><dict><key>a</key><array><key>k</key><string>s</string></array></dict></plist>",
        "<plist><string>a</string></plist>\n<string>b</string>\n",
        "<plist><string>a</string></plist>\n<dict>",
        "<plist><string>a</string></plist>\u{1}\u{2}",
        "<?xml version=\"1.0\"?>\n<string>a</string>\ntrailing",
    ])
    func xmlRepairs(_ text: String) throws {
        let data = Data(text.utf8)
        expectSameAsFoundation(data) { try PlistValue(parsing: $0) }
        var binary = Data()
        try PlistStreaming.writeBinary(fromXML: data) { binary += $0 }
        #expect(binary == (try PlistValue(parsing: data).serialized(as: .binary)))
        #expect(throws: PlistError.self) { try PlistValue(parsing: data, options: Self.strict) }
    }

    /// What Foundation refuses stays refused: a second value, an unclosed `<plist>`, a value where a
    /// key belongs.
    @Test(arguments: ["<plist><true/><false/></plist>", "<plist><string>a</string>", "<dict><string>a</string></dict>"])
    func xmlStillRefused(_ text: String) {
        #expect(throws: PlistError.self) { try PlistValue(parsing: Data(text.utf8)) }
        #expect((try? PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil)) == nil)
    }

    // MARK: OpenStep

    /// Unpaired `\U` surrogate escapes are U+FFFD wherever they are; a comment with no end ends the input.
    @Test(arguments: [
        "( \"\\UDC00x\" )", "( \"a\\UD800\" )", "( \"\\UD800\\UD800\" )", "( \"\\UD800\\U0041\" )",
        "( \"\\UD800\\n\" )", "( \"\\UD83D\\UDE00\\UDE00\" )", "( a ) /* c", "/* c", "{ a = \"\\UD800\"; }",
    ])
    func openStepRepairs(_ text: String) throws {
        let data = Data(text.utf8)
        expectSameAsFoundation(data) { try PlistValue(parsing: $0) }
        #expect(throws: PlistError.self) { try PlistValue(parsing: data, options: Self.strict) }
    }

    /// An unterminated comment inside a container still leaves it unclosed, as in Foundation.
    @Test(arguments: ["( a /* c", "{ a = b; /* c"])
    func unterminatedCommentInsideAContainer(_ text: String) {
        let error = #expect(throws: PlistError.self) { try PlistValue(parsing: Data(text.utf8)) }
        #expect(error?.kind == .truncated && error?.location == .line(1, column: 1), "\(String(describing: error))")
        #expect((try? PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil)) == nil)
    }
}
