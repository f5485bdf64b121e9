import Foundation
import Testing
import TestSupport
@testable import PlistCodec

// MARK: - Comparing with Foundation

/// Where `ours` and Foundation's `Any` result differ, or `nil` if they hold the same value.
///
/// Dictionaries compare as key sets (Foundation's are unordered); `NSNumber` booleans are told from
/// integers by their class, integers from reals by their `objCType`.
func foundationMismatch(_ ours: PlistValue, _ theirs: Any, path: String = "root") -> String? {
    func fail(_ why: String) -> String { "\(path): \(why) (ours \(ours), Foundation \(theirs))" }
    let number = theirs as? NSNumber
    let isBool = number.map { String(describing: type(of: $0)).contains("Boolean") } ?? false
    switch ours {
    case .string(let s):
        guard let t = theirs as? String else { return fail("kind") }
        return s.unicodeScalars.elementsEqual(t.unicodeScalars) ? nil : fail("string scalars")
    case .bool(let b):
        guard let number, isBool else { return fail("kind") }
        return number.boolValue == b ? nil : fail("bool")
    case .integer(let i):
        guard let number, !isBool, !"df".contains(String(cString: number.objCType)) else { return fail("kind") }
        let value = String(cString: number.objCType) == "Q" ? Int128(number.uint64Value) : Int128(number.int64Value)
        return value == i.value ? nil : fail("integer")
    case .real(let d):
        guard let number, !isBool, "df".contains(String(cString: number.objCType)) else { return fail("kind") }
        let t = number.doubleValue
        return d.bitPattern == t.bitPattern || (d.isNaN && t.isNaN) ? nil : fail("real")
    case .float(let f):
        guard let number else { return fail("kind") }
        return f == number.floatValue ? nil : fail("float")
    case .date(let d):
        guard let t = theirs as? Date else { return fail("kind") }
        return d.timeIntervalSinceReferenceDate.bitPattern == t.timeIntervalSinceReferenceDate.bitPattern
            ? nil : fail("date")
    case .data(let d):
        guard let t = theirs as? Data else { return fail("kind") }
        return d == t ? nil : fail("data")
    case .uid:
        return String(describing: type(of: theirs)).contains("UID") ? nil : fail("kind")
    case .array(let a):
        guard let t = theirs as? [Any] else { return fail("kind") }
        guard a.count == t.count else { return fail("count \(a.count) vs \(t.count)") }
        for (k, (x, y)) in zip(a, t).enumerated() {
            if let m = foundationMismatch(x, y, path: "\(path)[\(k)]") { return m }
        }
        return nil
    case .dictionary(let d):
        guard let t = theirs as? [String: Any] else { return fail("kind") }
        guard d.count == t.count, Set(d.keys) == Set(t.keys) else {
            return fail("keys \(d.keys.sorted()) vs \(t.keys.sorted())")
        }
        for (key, value) in d {
            guard let other = t[key] else { return fail("missing key \(key)") }
            if let m = foundationMismatch(value, other, path: "\(path).\(key)") { return m }
        }
        return nil
    }
}

/// Parses `data` with our reader and with `PropertyListSerialization`, and expects the same value.
func expectSameAsFoundation(_ data: Data, reader: (Data) throws -> PlistValue,
                            sourceLocation: SourceLocation = #_sourceLocation) {
    let text = String(decoding: data.prefix(300), as: UTF8.self)
    let theirs: Any
    do {
        theirs = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    } catch {
        Issue.record("Foundation rejects the test input: \(error)\n\(text)", sourceLocation: sourceLocation)
        return
    }
    do {
        let ours = try reader(data)
        if let m = foundationMismatch(ours, theirs) {
            Issue.record("\(m)\ninput: \(text)", sourceLocation: sourceLocation)
        }
    } catch {
        Issue.record("we reject what Foundation reads: \(error)\ninput: \(text)", sourceLocation: sourceLocation)
    }
}

/// A malformed input with the error it must give.
struct BadInput: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var kind: PlistError.Kind
    var line: Int
    var column: Int
    var testDescription: String { name }

    init(_ name: String, _ text: String, _ kind: PlistError.Kind, line: Int, column: Int) {
        self.init(name, Array(text.utf8), kind, line: line, column: column)
    }

    init(_ name: String, _ bytes: [UInt8], _ kind: PlistError.Kind, line: Int, column: Int) {
        self.name = name
        self.bytes = bytes
        self.kind = kind
        self.line = line
        self.column = column
    }
}

/// Expects `read` to throw a `PlistError` of `input.kind` at `input.line`/`input.column`.
func expectFailure(_ input: BadInput, _ read: (Data) throws -> PlistValue,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let value = try read(Data(input.bytes))
        Issue.record("\(input.name): parsed as \(value)", sourceLocation: sourceLocation)
    } catch let error as PlistError {
        #expect(error.kind == input.kind, "\(input.name): \(error)", sourceLocation: sourceLocation)
        #expect(error.location == .line(input.line, column: input.column), "\(input.name): \(error)",
                sourceLocation: sourceLocation)
    } catch {
        Issue.record("\(input.name): not a PlistError: \(error)", sourceLocation: sourceLocation)
    }
}

/// A complete XML property list around `body`, as Apple's writers lay it out.
func xmlDocument(_ body: String) -> Data {
    Data("""
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    \(body)
    </plist>

    """.utf8)
}

/// Reads the Apple-written fixture at `relativePath` (below `fixtures/apple/`), from the project's
/// `Fixtures/PlistCodec/apple/` copy or the shared originals.
func appleFixture(_ relativePath: String) throws -> Data {
    let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let candidates = [
        here.appendingPathComponent("Fixtures/PlistCodec/apple/" + relativePath),
        URL(fileURLWithPath: "/work/shared/fixtures/apple/" + relativePath),
    ]
    for url in candidates where FileManager.default.fileExists(atPath: url.path) {
        return try Data(contentsOf: url)
    }
    throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: relativePath])
}

private func readXML(_ data: Data) throws -> PlistValue {
    try XMLPlistReader(data: data, options: PlistReadOptions()).read()
}

/// Strict reading: what Foundation tolerates (a stray `<key>`, content after the root, date fields
/// out of range) is refused.
private func readXMLStrict(_ data: Data) throws -> PlistValue {
    try XMLPlistReader(data: data, options: PlistReadOptions(strict: true)).read()
}

// MARK: - Tests

@Suite struct XMLReaderTests {
    @Test func everyElementKind() throws {
        let value = try readXML(xmlDocument("""
        <dict>
        \t<key>s</key><string> two  spaces\tand tab </string>
        \t<key>i</key><integer>-42</integer>
        \t<key>r</key><real>2.5</real>
        \t<key>t</key><true/>
        \t<key>f</key><false/>
        \t<key>d</key><date>2001-01-01T00:00:10Z</date>
        \t<key>b</key><data>
        \tAAEC
        \t/w==
        \t</data>
        \t<key>a</key><array><string/><array/><dict/><data/></array>
        \t<key>e</key><string></string>
        </dict>
        """))
        let expected: PlistValue = .dictionary([
            "s": .string(" two  spaces\tand tab "), "i": .int(-42), "r": .real(2.5), "t": .bool(true),
            "f": .bool(false), "d": .date(Date(timeIntervalSinceReferenceDate: 10)),
            "b": .data(Data([0, 1, 2, 0xFF])),
            "a": .array([.string(""), .array([]), .dictionary([:]), .data(Data())]), "e": .string(""),
        ])
        #expect(value == expected)
        #expect(value.dictionaryValue?.keys == ["s", "i", "r", "t", "f", "d", "b", "a", "e"])
    }

    static let foundationCases: [String] = [
        "<string>&lt;a&gt; &amp; &quot;b&quot; &apos;c&apos; &#65;&#x42;&#x1F600;&#233;</string>",
        "<string>x<![CDATA[<not> & a tag]]>y<![CDATA[]]>z</string>",
        "<string>caf\u{E9} \u{65}\u{301} \u{1F600} \u{10FFFF} \u{4E2D}\u{6587} \u{FEFF}</string>",
        "<string>line1\nline2\r\nline3\rline4</string>",
        "<dict><key>\u{1F600}</key><string>astral key</string><key>k&amp;</key><string>v</string></dict>",
        "<array><array><array><dict><key>a</key><array><dict/></array></dict></array></array></array>",
        "<integer>0x1F</integer>", "<integer>-0x10</integer>", "<integer>+7</integer>", "<integer>- 5</integer>",
        "<integer>18446744073709551615</integer>", "<integer>-9223372036854775808</integer>",
        "<integer>9223372036854775808</integer>", "<integer>0xFFFFFFFFFFFFFFFF</integer>",
        "<integer> 12</integer>", "<integer>007</integer>",
        "<real>1e3</real>", "<real>-0.0</real>", "<real>.5</real>", "<real>5.</real>", "<real>1.7976931348623157e308</real>",
        "<real>4.9e-324</real>", "<real>nan</real>", "<real>NaN</real>", "<real>+infinity</real>", "<real>-infinity</real>",
        "<real>inf</real>", "<real>Infinity</real>", "<real>-INF</real>", "<real> 3.25</real>", "<real>0.1</real>",
        "<date>2004-10-26T10:33:33Z</date>", "<date>1969-12-31T23:59:59Z</date>",
        "<data>SGVsbG8=</data>", "<data>SGVsbA==</data>", "<data>\n\tSGVs\n\tbG8s\n\tIHdv\n\tcmxk\n</data>",
        "<dict><key>CF$UID</key><integer>7</integer></dict>",
        "<array><dict><key>CF$UID</key><integer>0</integer></dict><dict><key>CF$UID</key><string>7</string></dict></array>",
        "<dict><key>a</key><integer>1</integer><key>b</key><integer>2</integer><key>a</key><integer>3</integer></dict>",
        "<string attr=\"x\">attributes are skipped</string>",
        "<!-- a comment --><array><!-- inside --><true/><!-- between --> <false/></array>",
        "<true></true>", "<dict></dict>", "<array></array>", "<string>   </string>",
    ]

    @Test(arguments: foundationCases)
    func matchesFoundation(_ body: String) {
        expectSameAsFoundation(xmlDocument(body), reader: readXML)
    }

    @Test func appleFixturesMatchFoundation() throws {
        for path in ["cpython/testdata_xml.plist", "swift-foundation/Generic_XML_Properties.plist"] {
            let data = try appleFixture(path)
            expectSameAsFoundation(data, reader: readXML)
            // And the public entry point detects the format and gives the same value.
            #expect(try PlistValue(parsing: data) == readXML(data), "\(path)")
        }
    }

    @Test func keysKeepFileOrderAndRepeatsKeepFirstPosition() throws {
        let value = try readXML(xmlDocument("""
        <dict><key>z</key><integer>1</integer><key>a</key><integer>2</integer>
        <key>z</key><integer>3</integer><key>e\u{301}</key><integer>4</integer><key>\u{E9}</key><integer>5</integer></dict>
        """))
        let dict = try #require(value.dictionaryValue)
        #expect(dict.keys.map { Array($0.unicodeScalars) } == ["z", "a", "e\u{301}", "\u{E9}"].map { Array($0.unicodeScalars) })
        #expect(dict.values == [.int(3), .int(2), .int(4), .int(5)])
        // Large dictionaries take the hashed path; the rule is the same.
        var body = "<dict>"
        for i in 0..<100 { body += "<key>k\(i % 40)</key><integer>\(i)</integer>" }
        let big = try #require(try readXML(xmlDocument(body + "</dict>")).dictionaryValue)
        #expect(big.keys == (0..<40).map { "k\($0)" })
        // Key k(j) was last set by i = j + 80 (j < 20) or i = j + 40.
        #expect(big.values == (0..<40).map { PlistValue.int($0 < 20 ? $0 + 80 : $0 + 40) })
    }

    @Test func integersKeepTheirWidth() throws {
        func int(_ text: String) throws -> PlistInteger {
            let v = try readXML(xmlDocument("<integer>\(text)</integer>"))
            guard case .integer(let i) = v else { throw PlistError(.malformed, "not an integer: \(v)") }
            return i
        }
        #expect(try int("9223372036854775807") == PlistInteger(Int64.max))
        #expect(try int("9223372036854775808") == PlistInteger(Int128(Int64.max) + 1))
        #expect(try int("9223372036854775808").isWide)
        #expect(try !int("-9223372036854775808").isWide)
        #expect(try int("0x7fffffffffffffffffffffffffffffff") == PlistInteger(Int128.max))
        #expect(try int("-170141183460469231731687303715884105728") == PlistInteger(Int128.min))
        #expect(try int("0XaB") == PlistInteger(171))
    }

    @Test func specialRealsAndUIDs() throws {
        #expect(try readXML(xmlDocument("<real>nan</real>")).doubleValue?.isNaN == true)
        #expect(try readXML(xmlDocument("<real>-inf</real>")) == .real(-.infinity))
        #expect(try readXML(xmlDocument("<real>-0</real>")) == .real(-0.0))
        #expect(try readXML(xmlDocument("<dict><key>CF$UID</key><integer>4294967296</integer></dict>")) == .uid(1 << 32))
        // Only a dictionary whose single key is CF$UID with an unsigned integer is a UID.
        #expect(try readXML(xmlDocument("<dict><key>CF$UID</key><integer>-1</integer></dict>"))
            == .dictionary(["CF$UID": .int(-1)]))
        #expect(try readXML(xmlDocument("<dict><key>CF$UID</key><integer>1</integer><key>x</key><true/></dict>"))
            == .dictionary(["CF$UID": .int(1), "x": .bool(true)]))
    }

    /// Dates decode to the same `Date` as `PropertyListDecoder` gives, before 1582 included.
    @Test(arguments: [
        "2001-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
        "1600-01-01T00:00:00Z", "1600-02-29T12:00:00Z", "1582-10-15T00:00:00Z", "1582-10-04T23:59:59Z",
        "1582-12-31T00:00:00Z", "1500-02-29T00:00:00Z", "1500-03-01T00:00:00Z", "1000-06-15T08:30:00Z",
        "0001-01-01T00:00:00Z", "0000-01-01T00:00:00Z", "0400-02-29T00:00:00Z", "2004-10-26T10:33:33Z",
        "2024-02-29T23:59:59Z", "10000-01-01T00:00:00Z", "318888-05-20T17:46:40Z", "506714-12-31T00:00:00Z",
        "506715-01-01T00:00:00Z", "99999999999-01-01T00:00:00Z", "-0001-01-03T00:00:00Z",
        "-600000-03-01T00:00:00Z",
    ])
    func datesMatchPropertyListDecoder(_ text: String) throws {
        struct D: Codable { var d: Date }
        let xml = xmlDocument("<dict><key>d</key><date>\(text)</date></dict>")
        let theirs = try PropertyListDecoder().decode(D.self, from: xml).d
        let ours = try readXML(xml).dictionaryValue?["d"]
        #expect(ours == .date(theirs), "\(text): Foundation \(theirs.timeIntervalSinceReferenceDate)")
    }

    /// Dates the project's XML writer produces read back as the same whole second.
    @Test func writtenDatesReadBack() throws {
        let seed = UInt64.random(in: 1...UInt64.max)
        print("XMLReaderTests.writtenDatesReadBack seed: \(seed)")
        var rng = SeededGenerator(seed: seed)
        var times: [Double] = [0, -1, 1e13, -13197600001, -13197600000, -63113904000, -50_000_000_000]
        for _ in 0..<200 { times.append(Double(Int64.random(in: -63_000_000_000...300_000_000_000, using: &rng))) }
        for t in times {
            let xml = try PlistValue.array([.date(Date(timeIntervalSinceReferenceDate: t))]).serialized(as: .xml)
            let back = try readXML(xml)
            #expect(back == .array([.date(Date(timeIntervalSinceReferenceDate: t.rounded(.down)))]),
                    "\(t): \(String(decoding: xml, as: UTF8.self))")
        }
    }

    /// Strict reading refuses text Foundation carries over (month 13, February 30, hour 24), and
    /// text that is not a date at all in either mode.
    @Test(arguments: ["2020-13-01T00:00:00Z", "2001-02-29T00:00:00Z", "2001-00-10T00:00:00Z",
                      "2001-01-00T00:00:00Z", "2001-01-01T24:00:00Z", "2001-01-01T00:60:00Z",
                      "2001-01-01T00:00:60Z", "2001-1-01T00:00:00Z", " 2001-01-01T00:00:00Z",
                      "2001-01-01T00:00:00", "2001-01-01T00:00:00Z ", "+2001-01-01T00:00:00Z", "",
                      "2001-01-01 00:00:00Z", "99999999999999999999-01-01T00:00:00Z"])
    func outOfRangeDatesAreRejected(_ text: String) {
        let error = #expect(throws: PlistError.self) {
            try readXMLStrict(Data("<plist><date>\(text)</date></plist>".utf8))
        }
        #expect(error?.kind == .invalidDate)
        #expect(error?.location == .line(1, column: 14))
    }

    @Test func byteOrderMarksAndUTF16() throws {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<plist><array><string>\u{E9}\u{1F600}</string></array></plist>"
        let expected: PlistValue = .array([.string("\u{E9}\u{1F600}")])
        #expect(try readXML(Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)) == expected)
        let be = Data([0xFE, 0xFF]) + Data(text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        let le = Data([0xFF, 0xFE]) + Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        #expect(try readXML(be) == expected)
        #expect(try readXML(le) == expected)
        // UTF-16 XML also reads through the format-detecting entry point.
        #expect(try PlistValue(parsing: be) == expected)
        let error = #expect(throws: PlistError.self) { try readXML(Data([0xFE, 0xFF, 0xD8, 0x00, 0x00, 0x41])) }
        #expect(error?.kind == .invalidString)
    }

    @Test func rootWithoutPlistWrapperAndTrailingComments() throws {
        #expect(try readXML(Data("<array><true/></array>".utf8)) == .array([.bool(true)]))
        #expect(try readXML(Data("<?xml version=\"1.0\"?>\n<!-- c --><dict/>\n<!-- after -->\n".utf8)) == .dictionary([:]))
        #expect(try readXML(Data("<plist><plist><integer>1</integer></plist></plist>".utf8)) == .int(1))
        let doctype = "<!DOCTYPE plist [ <!ENTITY x \"a>b\"> ]><plist><string>s</string></plist>"
        #expect(try readXML(Data(doctype.utf8)) == .string("s"))
    }

    static let badInputs: [BadInput] = [
        BadInput("empty input", "", .truncated, line: 1, column: 1),
        BadInput("prolog only", "<?xml version=\"1.0\"?>\n", .truncated, line: 2, column: 1),
        BadInput("mismatched close", "<plist><array><true/></plist>", .malformed, line: 1, column: 22),
        BadInput("unclosed array", "<plist>\n<array>\n<true/>", .truncated, line: 2, column: 1),
        BadInput("unclosed string", "<string>abc", .truncated, line: 1, column: 1),
        BadInput("unknown tag", "<plist>\n  <number>1</number>\n</plist>", .malformed, line: 2, column: 3),
        BadInput("dict value without key", "<dict><string>x</string></dict>", .malformed, line: 1, column: 7),
        BadInput("key without value", "<dict><key>a</key></dict>", .malformed, line: 1, column: 19),
        BadInput("key in array", "<array><key>a</key></array>", .malformed, line: 1, column: 8),
        BadInput("text outside elements", "<array>hello</array>", .malformed, line: 1, column: 8),
        BadInput("text in true", "<true>x</true>", .malformed, line: 1, column: 7),
        BadInput("bad integer", "<plist>\n<integer>12a</integer>\n</plist>", .invalidNumber, line: 2, column: 12),
        BadInput("integer past Int128", "<integer>340282366920938463463374607431768211456</integer>",
                 .invalidNumber, line: 1, column: 10),
        BadInput("empty integer", "<integer/>", .invalidNumber, line: 1, column: 1),
        BadInput("hex real", "<real>0x10</real>", .invalidNumber, line: 1, column: 8),
        BadInput("bad real", "<real>1.2.3</real>", .invalidNumber, line: 1, column: 10),
        BadInput("bad date", "<dict>\n\t<key>d</key>\n\t<date>yesterday</date>\n</dict>", .invalidDate, line: 3, column: 8),
        BadInput("bad base64 character", "<data>AAA*</data>", .invalidBase64, line: 1, column: 10),
        BadInput("incomplete base64 group", "<data>AAAAAA</data>", .invalidBase64, line: 1, column: 11),
        BadInput("base64 after padding", "<data>QQ==QQ==</data>", .invalidBase64, line: 1, column: 11),
        BadInput("bad UTF-8", [UInt8]("<string>a".utf8) + [0xFF] + [UInt8]("b</string>".utf8),
                 .invalidString, line: 1, column: 10),
        BadInput("overlong UTF-8 in key", [UInt8]("<dict>\n<key>".utf8) + [0xC0, 0xAF] + [UInt8]("</key><true/></dict>".utf8),
                 .invalidString, line: 2, column: 6),
        BadInput("unterminated entity", "<string>a &amp b</string>", .malformed, line: 1, column: 11),
        BadInput("unknown entity", "<string>&nbsp;</string>", .malformed, line: 1, column: 9),
        BadInput("surrogate reference", "<string>&#xD800;</string>", .invalidString, line: 1, column: 9),
        BadInput("unterminated CDATA", "<string><![CDATA[abc</string>", .truncated, line: 1, column: 9),
        BadInput("unterminated comment", "<plist>\n<!-- never closed\n", .truncated, line: 2, column: 1),
        BadInput("garbage after root", "<plist><true/></plist>\ngarbage", .malformed, line: 2, column: 1),
        BadInput("two values", "<plist><true/><false/></plist>", .malformed, line: 1, column: 15),
        BadInput("empty plist", "<plist></plist>", .malformed, line: 1, column: 8),
        BadInput("CRLF lines", "<plist>\r\n<array>\r\n<foo/>\r\n</array></plist>", .malformed, line: 3, column: 1),
        BadInput("unterminated tag", "<plist><array", .truncated, line: 1, column: 8),
    ]

    @Test(arguments: badInputs)
    func malformedInputFailsWithLocation(_ input: BadInput) {
        expectFailure(input, readXMLStrict)
    }

    /// By default, date fields out of range carry over exactly as `PropertyListDecoder` carries them.
    @Test(arguments: ["2020-13-01T00:00:00Z", "2001-02-29T00:00:00Z", "2000-02-30T10:00:00Z", "2001-01-01T24:00:00Z",
                      "2001-01-01T00:60:00Z", "2001-01-01T00:00:60Z", "1999-12-31T23:59:99Z", "2001-99-99T99:99:99Z",
                      "1582-10-10T00:00:00Z", "1500-02-29T12:00:00Z", "0100-02-29T00:00:00Z"])
    func outOfRangeDateFieldsCarryOverAsInFoundation(_ text: String) throws {
        let xml = Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<array><date>\(text)</date></array>\n</plist>\n".utf8)
        let theirs = try PropertyListDecoder().decode([Date].self, from: xml)[0]
        let ours = try readXML(xml)
        #expect(ours == .array([.date(theirs)]), "\(text): Foundation \(theirs.timeIntervalSinceReferenceDate), ours \(ours)")
    }

    @Test func deepNestingIsRefusedWithoutRecursion() throws {
        let deep = Data((String(repeating: "<array>", count: 100_000) + String(repeating: "</array>", count: 100_000)).utf8)
        let error = #expect(throws: PlistError.self) { try PlistValue(parsing: deep) }
        #expect(error?.kind == .tooDeep)
        #expect(error?.location == .line(1, column: 512 * 7 + 1))
        // An unclosed nest deeper than the limit reports the end of input, not a crash.
        let unclosed = Data(String(repeating: "<dict><key>k</key>", count: 100_000).utf8)
        let options = PlistReadOptions(maxDepth: 1_000_000)
        let error2 = #expect(throws: PlistError.self) { try XMLPlistReader(data: unclosed, options: options).read() }
        #expect(error2?.kind == .truncated)
    }

    @Test func maxDepthIsExact() throws {
        let options = PlistReadOptions(maxDepth: 3)
        let three = Data("<array><dict><key>a</key><array/></dict></array>".utf8)
        #expect(try XMLPlistReader(data: three, options: options).read()
            == .array([.dictionary(["a": .array([])])]))
        // An empty container at depth 4 is too deep as well.
        let four = Data("<array><dict><key>a</key><array><array/></array></dict></array>".utf8)
        let error = #expect(throws: PlistError.self) { try XMLPlistReader(data: four, options: options).read() }
        #expect(error?.kind == .tooDeep)
        #expect(error?.location == .line(1, column: 33))
    }

    /// A pseudo-random property list written by Foundation's XML writer reads back equal.
    @Test func randomDocumentsMatchFoundation() throws {
        let seed = UInt64.random(in: 1...UInt64.max)
        print("XMLReaderTests.randomDocumentsMatchFoundation seed: \(seed)")
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<40 {
            let object = randomObject(&rng, depth: 0)
            let xml = try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0)
            expectSameAsFoundation(xml, reader: readXML)
        }
    }
}

/// A random Foundation property-list object (strings with markup and astral characters, numbers,
/// dates, data, nested containers).
func randomObject(_ rng: inout SeededGenerator, depth: Int) -> Any {
    let pieces = ["a", "<", "&", ">", "\"", "'", " ", "\n", "\t", "\u{E9}", "\u{1F600}", "\u{4E2D}", "]]>", "x y"]
    func string() -> String { (0..<Int.random(in: 0...8, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined() }
    switch Int.random(in: 0..<(depth < 4 ? 10 : 7), using: &rng) {
    case 0: return string()
    case 1: return NSNumber(value: Int64.random(in: Int64.min...Int64.max, using: &rng))
    case 2: return NSNumber(value: Double(Int.random(in: -1_000_000...1_000_000, using: &rng)) / 64)
    case 3: return NSNumber(value: Bool.random(using: &rng))
    case 4: return Date(timeIntervalSinceReferenceDate: Double(Int64.random(in: -1_000_000_000...4_000_000_000, using: &rng)))
    case 5: return Data((0..<Int.random(in: 0...80, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
    case 6: return NSNumber(value: Int.random(in: -5...300, using: &rng))
    case 7, 8:
        return (0..<Int.random(in: 0...5, using: &rng)).map { _ in randomObject(&rng, depth: depth + 1) }
    default:
        var d: [String: Any] = [:]
        for _ in 0..<Int.random(in: 0...5, using: &rng) { d[string()] = randomObject(&rng, depth: depth + 1) }
        return d
    }
}
