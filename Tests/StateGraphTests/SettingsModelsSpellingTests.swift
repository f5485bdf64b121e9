import Foundation
import Testing
import TestSupport

/// Apps/settings/SettingsModels/SettingsModels.swift, which the `settings` app and these tests share,
/// is the article's code for its four types with only the three changes its header lists: `public` on
/// each declaration, `Sendable` on each type, and `UserTheme`'s public initializer. This removes those
/// changes and compares the result with the article's code blocks, line by line.
@Suite struct SettingsModelsSpellingTests {
    /// The types the shared file holds, each from the declaration line to its closing brace.
    static let types = ["final class UserPreferencesModel {", "final class AppConfigurationModel {",
                        "struct UserTheme: Codable {", "final class ThemeModel {"]

    /// The article's text: `shared/originals` beside the package (or beside the worktree's parent).
    static func article() throws -> String {
        var folder = Fixtures.root.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("shared/originals/003_906799d4825f9dee.txt")
            if FileManager.default.fileExists(atPath: candidate.path) { return try String(contentsOf: candidate, encoding: .utf8) }
            folder = folder.deletingLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "shared/originals/003_906799d4825f9dee.txt not found above \(Fixtures.root.path)"])
    }

    /// The non-empty, non-comment lines of `text`, trimmed.
    static func codeLines<S: StringProtocol>(_ text: S) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("//") && !$0.hasPrefix("import ") }
    }

    /// The lines of `text` from the line `start` to the first closing brace at the start of a line.
    static func declaration(_ start: String, in text: String) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.firstIndex(where: { $0 == start }),
              let end = lines[first...].firstIndex(where: { $0 == "}" }) else { return nil }
        return lines[first...end].joined(separator: "\n")
    }

    @Test func theSharedModelsAreTheArticlesCodeWithOnlyTheListedChanges() throws {
        let article = try Self.article()
        let file = try String(contentsOf: Fixtures.root.deletingLastPathComponent()
            .appendingPathComponent("Apps/settings/SettingsModels/SettingsModels.swift"), encoding: .utf8)
        var ours = Self.codeLines(file).map {
            $0.replacingOccurrences(of: "public ", with: "")
                .replacingOccurrences(of: ": Sendable {", with: " {")
                .replacingOccurrences(of: ", Sendable {", with: " {")
        }
        let initializer = ["init(name: String, primaryColor: String, accentColor: String) {", "self.name = name",
                           "self.primaryColor = primaryColor", "self.accentColor = accentColor", "}"]
        let start = try #require(ours.firstIndex(of: initializer[0]), "no UserTheme initializer")
        #expect(Array(ours[start..<min(start + initializer.count, ours.count)]) == initializer)
        ours.removeSubrange(start..<min(start + initializer.count, ours.count))
        var expected: [String] = []
        for type in Self.types {
            let code = try #require(Self.declaration(type, in: article), "the article has no \(type)")
            expected += Self.codeLines(code)
        }
        #expect(ours.count == expected.count, "\(ours.count) code lines, the article's types have \(expected.count)")
        for (index, (line, original)) in zip(ours, expected).enumerated() where line != original {
            Issue.record("line \(index + 1): \(line) differs from the article's \(original)")
        }
    }
}
