import MacroSupport
import SwiftSyntax
import Testing

@Suite struct OptionalTypeTests {
    @Test(arguments: ["Int?", "Int!", "Optional<Int>", "Swift.Optional<Int>", "[String]?", "(any Error)?", "Optional<[Int]>"])
    func optionalSpellings(_ spelling: String) throws {
        let parsed = try #require(type(spelling))
        #expect(parsed.isOptional)
    }

    @Test(arguments: ["Int", "[Int?]", "[String: Int?]", "Foo.Optional<Int>", "OptionalBox<Int>", "Result<Int?, Error>"])
    func otherTypes(_ spelling: String) throws {
        let parsed = try #require(type(spelling))
        #expect(!parsed.isOptional)
    }
}
