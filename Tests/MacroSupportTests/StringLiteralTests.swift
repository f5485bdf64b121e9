import MacroSupport
import SwiftSyntax
import Testing

@Suite struct StringLiteralTests {
    @Test func quotesBackslashesAndControlCharactersAreEscaped() {
        #expect("plain".literalEscaped == "plain")
        #expect(#"say "hi""#.literalEscaped == #"say \"hi\""#)
        #expect(#"C:\dir"#.literalEscaped == #"C:\\dir"#)
        #expect("a\nb\tc\rd\0e".literalEscaped == #"a\nb\tc\rd\0e"#)
        #expect("naïve ✓".literalEscaped == "naïve ✓", "other characters are kept")
        #expect("Customer".quotedLiteral == #""Customer""#)
        #expect("".quotedLiteral == #""""#)
    }

    @Test(arguments: ["Customer", "orders_v2", #"a "quoted" name"#, #"back\slash"#, "line\nbreak", "tab\there", "nul\0byte",
                      "\\(not interpolated)", "#", "naïve ✓"])
    func theLiteralParsesBackToTheString(_ text: String) throws {
        let declaration = try #require(variable("let x = \(text.quotedLiteral)"))
        let literal = try #require(declaration.initialValue?.as(StringLiteralExprSyntax.self))
        #expect(literal.representedLiteralValue == text)
    }
}
