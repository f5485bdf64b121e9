import Foundation
import Testing
import TestSupport
@testable import PlistCodec

private func readOpenStep(_ data: Data) throws -> PlistValue {
    try OpenStepPlistReader(data: data, options: PlistReadOptions()).read()
}

private func read(_ text: String) throws -> PlistValue { try readOpenStep(Data(text.utf8)) }

/// Strict reading: an unterminated comment and unpaired surrogate escapes are refused.
private func readOpenStepStrict(_ data: Data) throws -> PlistValue {
    try OpenStepPlistReader(data: data, options: PlistReadOptions(strict: true)).read()
}

@Suite struct OpenStepReaderTests {
    static let foundationCases: [String] = [
        "{ a = b; c = \"quoted string\"; }",
        "{ \"k\" = <00ff 10\n 20>; x = (); y = {}; z = <>; }",
        "(a, b, c)", "(a, b, c,)", "()", "( )", "{}",
        "( \"x\\ny\\tz\\r\", \"\\\"q\\\" \\\\ \\a\\b\\f\\v\", 'single \"quotes\"', \"\\'\" )",
        "( \"\\101\\102\\060\", \"\\351\\341\\0\", \"\\1234\", \"\\U00e9\\U4E2D\", \"\\UD83D\\UDE00\", \"\\U41z\" )",
        "( \"caf\u{E9} \u{1F600} \u{4E2D}\u{6587}\", caf, \"e\u{301}\" )",
        "( $x, a_b, /usr/bin:/bin, 1.5, -3, a.b-c )",
        "// comment\n{ /* block\n comment */ a = b; // trailing\n c = d; }",
        "{ a = { b = { c = (1, (2, (3, {d = e;}))); }; }; }",
        "{ a = b; a = c; }",
        "{ a; \"b c\"; }",
        "a = b; c = \"d\"; \"e f\" = (g, h); i = <0a>;",
        "a;b;",
        "\"just a string\"", "abc", "<0fbd 77>", "   \n\t ",
        "/* only a comment */",
        "{ \"\" = \"\"; }",
        "{ a = \"line\nbreak\"; }",
        "{ key\u{2028}= value\u{2029}; }",
        "(\u{0B}\u{0C}a\u{0B},\u{0C}b)",
    ]

    @Test(arguments: foundationCases)
    func matchesFoundation(_ text: String) {
        expectSameAsFoundation(Data(text.utf8), reader: readOpenStep)
    }

    @Test func octalEscapesUseNeXTSTEPEncoding() {
        for byte in 1...255 {
            let text = "(\"\\\(String(byte, radix: 8))\")"
            expectSameAsFoundation(Data(text.utf8), reader: readOpenStep)
        }
    }

    @Test func valuesAndOrder() throws {
        let value = try read("{ z = (a, <01 02>); a = { \"k\" = v; }; m = 'x'; }")
        let expected: PlistValue = .dictionary([
            "z": .array([.string("a"), .data(Data([1, 2]))]),
            "a": .dictionary(["k": .string("v")]),
            "m": .string("x"),
        ])
        #expect(value == expected)
        #expect(value.dictionaryValue?.keys == ["z", "a", "m"])
        // A repeated key keeps its first position and its last value.
        #expect(try read("{ a = 1; b = 2; a = 3; }").dictionaryValue?.keys == ["a", "b"])
        #expect(try read("{ a = 1; b = 2; a = 3; }").dictionaryValue?["a"] == .string("3"))
    }

    /// A leniency beyond Apple's parser (`+` in unquoted strings), and a strictness that matches it:
    /// every dictionary pair, the last one included, ends with `;`.
    @Test func tolerancesAndStrictnessAgainstApple() throws {
        #expect(try read("{ a = b+c; }") == .dictionary(["a": .string("b+c")]))
        for text in ["{ a = b; c = d }", "a = b; c = d"] {
            let error = #expect(throws: PlistError.self) { try read(text) }
            // Mid-text it is malformed; at the end of the input, truncated.
            #expect(error?.kind == .malformed || error?.kind == .truncated, "\(text)")
            #expect((try? PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil)) == nil, "Apple rejects \(text) too")
        }
    }

    @Test func emptyAndBlankInput() throws {
        #expect(try read("  \n// nothing\n") == .dictionary([:]))
        let error = #expect(throws: PlistError.self) { try read("") }
        #expect(error?.kind == .truncated)
        #expect(error?.location == .line(1, column: 1))
    }

    @Test func utf16StringsFiles() throws {
        let text = "/* Localizable */\n\"greeting\" = \"Gr\u{FC}\u{DF}e \u{1F600}\";\n"
        let be = Data([0xFE, 0xFF]) + Data(text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        let le = Data([0xFF, 0xFE]) + Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        let expected: PlistValue = .dictionary(["greeting": .string("Gr\u{FC}\u{DF}e \u{1F600}")])
        #expect(try readOpenStep(be) == expected)
        #expect(try readOpenStep(le) == expected)
        #expect(try PlistValue(parsing: le) == expected)
        #expect(try readOpenStep(Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)) == expected)
    }

    static let badInputs: [BadInput] = [
        BadInput("empty", "", .truncated, line: 1, column: 1),
        BadInput("unterminated string", "{ a = \"abc;\n}\n", .truncated, line: 1, column: 7),
        BadInput("unterminated dict", "{\n a = b;\n", .truncated, line: 1, column: 1),
        BadInput("unterminated array", "(a,\n (b, c)", .truncated, line: 1, column: 1),
        BadInput("unterminated comment", "( a /* forever", .truncated, line: 1, column: 5),
        BadInput("missing equals", "{ a b; }", .malformed, line: 1, column: 5),
        BadInput("missing semicolon", "{ a = b c = d; }", .malformed, line: 1, column: 9),
        BadInput("missing value", "{ a = ; }", .malformed, line: 1, column: 7),
        BadInput("missing comma", "(a b)", .malformed, line: 1, column: 4),
        BadInput("double comma", "(a,,b)", .malformed, line: 1, column: 4),
        BadInput("bad hex", "<0fzz>", .malformed, line: 1, column: 4),
        BadInput("odd hex", "{\n  d = <0fb>;\n}", .malformed, line: 2, column: 10),
        BadInput("unterminated data", "<0f", .truncated, line: 1, column: 1),
        BadInput("lone surrogate", "(\"\\UD800\")", .invalidString, line: 1, column: 3),
        BadInput("lone low surrogate", "(\"a\\UDC00\")", .invalidString, line: 1, column: 4),
        BadInput("U without digits", "(\"\\Uzz\")", .malformed, line: 1, column: 3),
        BadInput("trailing garbage", "(a))", .malformed, line: 1, column: 4),
        BadInput("brace in strings file", "a = b;\n}", .malformed, line: 2, column: 1),
        BadInput("bad character", "( a, # )", .malformed, line: 1, column: 6),
        BadInput("bad UTF-8", [UInt8]("( \"a".utf8) + [0xC3, 0x28] + [UInt8]("\" )".utf8), .invalidString, line: 1, column: 5),
        BadInput("CRLF lines", "{\r\n a = b;\r\n c = ;\r\n}", .malformed, line: 3, column: 6),
    ]

    @Test(arguments: badInputs)
    func malformedInputFailsWithLocation(_ input: BadInput) {
        expectFailure(input, readOpenStepStrict)
    }

    /// By default, what Foundation tolerates reads as Foundation reads it.
    @Test(arguments: ["(\"\\UD800\")", "(\"a\\UDC00\")", "(\"\\UD800\\UD800x\")", "(\"\\UD800\\n\")", "( a ) /* open", "/* only"])
    func tolerantReadingMatchesFoundation(_ text: String) throws {
        let data = Data(text.utf8)
        let theirs = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        let ours = try readOpenStep(data)
        #expect(foundationMismatch(ours, theirs) == nil, "\(text): \(foundationMismatch(ours, theirs) ?? "")")
    }

    @Test func deepNestingIsRefused() throws {
        let deep = Data((String(repeating: "(", count: 100_000) + String(repeating: ")", count: 100_000)).utf8)
        let error = #expect(throws: PlistError.self) { try PlistValue(parsing: deep) }
        #expect(error?.kind == .tooDeep)
        #expect(error?.location == .line(1, column: 513))
        let options = PlistReadOptions(maxDepth: 2)
        #expect(try OpenStepPlistReader(data: Data("({a=b;})".utf8), options: options).read()
            == .array([.dictionary(["a": .string("b")])]))
        let tooDeep = #expect(throws: PlistError.self) {
            try OpenStepPlistReader(data: Data("({a=();})".utf8), options: options).read()
        }
        #expect(tooDeep?.kind == .tooDeep)
        #expect(tooDeep?.location == .line(1, column: 5))
        // A strings file is a dictionary: its pairs are at depth 1.
        let file = #expect(throws: PlistError.self) {
            try OpenStepPlistReader(data: Data("a = (b); c = ((d));".utf8), options: options).read()
        }
        #expect(file?.location == .line(1, column: 15))
    }

    /// Randomly built OpenStep text (random escapes, comments, nesting) reads as Foundation reads it.
    @Test func randomDocumentsMatchFoundation() {
        let seed = UInt64.random(in: 1...UInt64.max)
        print("OpenStepReaderTests.randomDocumentsMatchFoundation seed: \(seed)")
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<60 {
            let text = Self.randomText(&rng, depth: 0)
            expectSameAsFoundation(Data(text.utf8), reader: readOpenStep)
        }
    }

    static func randomText(_ rng: inout SeededGenerator, depth: Int) -> String {
        // Every separator starts with whitespace: `abc/* c */` would read `abc/` as one unquoted string.
        let space = [" ", "\n", "\t", " /* c */ ", " // line\n"]
        func sp() -> String { space.randomElement(using: &rng)! }
        func quoted() -> String {
            let pieces = ["a", " ", "\\n", "\\t", "\\\"", "\\\\", "\\101", "\\351", "\\U00e9", "\\UD83D\\UDE00",
                          "\u{E9}", "\u{1F600}", "'", ";", "=", "{", ")", "\\a", "\\v"]
            return "\"" + (0..<Int.random(in: 0...6, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined() + "\""
        }
        func unquoted() -> String { ["abc", "x_1", "$y", "/p/q:r", "1.5", "-2", "a.b"].randomElement(using: &rng)! }
        switch Int.random(in: 0..<(depth < 4 ? 6 : 3), using: &rng) {
        case 0: return quoted()
        case 1: return unquoted()
        case 2:
            let bytes = (0..<Int.random(in: 0...6, using: &rng)).map { _ in String(format: "%02x", Int.random(in: 0...255, using: &rng)) }
            return "<" + bytes.joined(separator: Bool.random(using: &rng) ? " " : "") + ">"
        case 3, 4:
            let items = (0..<Int.random(in: 0...4, using: &rng)).map { _ in sp() + randomText(&rng, depth: depth + 1) + sp() }
            return "(" + items.joined(separator: ",") + (Bool.random(using: &rng) && !items.isEmpty ? "," : "") + ")"
        default:
            let pairs = (0..<Int.random(in: 0...4, using: &rng)).map { _ in
                sp() + (Bool.random(using: &rng) ? quoted() : unquoted()) + sp() + "=" + sp()
                    + randomText(&rng, depth: depth + 1) + sp() + ";"
            }
            return "{" + pairs.joined() + sp() + "}"
        }
    }
}
