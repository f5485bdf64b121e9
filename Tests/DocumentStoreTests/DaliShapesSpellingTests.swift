import Foundation
import Testing

/// DaliShapes.swift is the post's code with only the listed Swift 2 -> Swift 6 spelling changes: this
/// applies those changes to the post's code blocks and compares the result with the file.
@Suite struct DaliShapesSpellingTests {
    /// The changes, in the order DaliShapes.swift's header lists them.
    static let spellingChanges: [(post: String, swift6: String)] = [
        ("NSUUID().UUIDString", "UUID().uuidString"),
        ("M_PI", "Double.pi"),
        ("right: Circle = try persistence.load", "let right: Circle = try persistence.load"),
        (".save(to)", ".save(to: to)"),
        ("let identifier", "var identifier"),
    ]

    static func codeLines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    @Test func theModelIsThePostsCodeWithOnlyTheListedChanges() throws {
        let post = try String(contentsOf: PackagePaths.shared.appendingPathComponent("originals/002_ca69decda4862487.txt"), encoding: .utf8)
        var blocks: [String] = []
        var rest = Substring(post)
        while let start = rest.range(of: "{% highlight swift %}"), let end = rest.range(of: "{% endhighlight %}", range: start.upperBound..<rest.endIndex) {
            blocks.append(String(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        #expect(blocks.count == 3, "the post's three code blocks")
        var expected = blocks.joined(separator: "\n")
        for change in Self.spellingChanges {
            #expect(expected.contains(change.post), "the post contains \(change.post)")
            expected = expected.replacingOccurrences(of: change.post, with: change.swift6)
        }
        let model = try String(contentsOf: PackagePaths.root.appendingPathComponent("Tests/DocumentTestModel/DaliShapes.swift"), encoding: .utf8)
        let ours = Self.codeLines(model)
            .filter { !$0.hasPrefix("//") && !$0.hasPrefix("import ") }
            .map { $0.replacingOccurrences(of: "public ", with: "") }
        let theirs = Self.codeLines(expected)
        #expect(ours.count == theirs.count)
        for (index, (line, original)) in zip(ours, theirs).enumerated() where line != original {
            Issue.record("line \(index + 1): \(line) differs from the post's \(original)")
        }
    }
}
