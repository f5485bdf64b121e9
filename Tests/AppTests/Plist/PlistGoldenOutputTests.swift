import Foundation
import Testing
import TestSupport

/// The `plist` command's output and exit status, compared with golden transcripts: every case
/// in-process, and some through the built program (the streams and exit status a shell sees).
///
/// Re-record with `PLIST_TOOL_RECORD_FIXTURES=1` in the test process's environment (it writes
/// `Fixtures/Apps/plist/golden/*.txt` from the in-process runs; review the diff before committing).
@Suite("plist golden output")
struct PlistGoldenOutputTests {
    static var isRecording: Bool { ProcessInfo.processInfo.environment["PLIST_TOOL_RECORD_FIXTURES"] == "1" }

    @Test(arguments: GoldenCase.all)
    func matchesGolden(_ scenario: GoldenCase) async throws {
        let temp = try TemporaryFolder(prefix: "plist-golden")
        let transcript = try await scenario.transcript(in: temp.url)
        let url = Fixtures.url(scenario.goldenPath)
        if Self.isRecording {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(transcript.utf8).write(to: url)
            print("recorded \(scenario.goldenPath)")
            return
        }
        let golden = try String(contentsOf: url, encoding: .utf8)
        if let difference = Fixtures.firstDifference(Data(transcript.utf8), Data(golden.utf8)) {
            Issue.record("\(scenario.name): \(difference)\n--- actual transcript:\n\(transcript)")
        }
    }

    /// Cases run through the built program too: help, a failure among successes, a usage error,
    /// output without a final newline, a file converted in place.
    static let programCases = GoldenCase.all.filter {
        ["help", "lint-missing-file", "usage-unknown-option", "extract-raw-no-newline", "convert-binary-then-print"].contains($0.name)
    }

    @Test(arguments: programCases)
    func theProgramMatchesGolden(_ scenario: GoldenCase) async throws {
        let temp = try TemporaryFolder(prefix: "plist-golden-program")
        let transcript = try await scenario.transcript(in: temp.url, plist: PlistProgram.runProgram)
        let golden = try String(contentsOf: Fixtures.url(scenario.goldenPath), encoding: .utf8)
        if let difference = Fixtures.firstDifference(Data(transcript.utf8), Data(golden.utf8)) {
            Issue.record("\(scenario.name), the program: \(difference)\n--- actual transcript:\n\(transcript)")
        }
        #expect(Self.programCases.count == 5)
    }

    @Test func everyGoldenFileHasACase() {
        let names = Set(GoldenCase.all.map { "Apps/plist/golden/\($0.name).txt" })
        #expect(names.count == GoldenCase.all.count, "two cases share a name")
        let files = Fixtures.list("Apps/plist/golden", suffix: ".txt")
        #expect(!files.isEmpty)
        for file in files { #expect(names.contains(file), "\(file) has no case: delete it or add one") }
    }

    @Test func blocksMarkAMissingFinalNewline() {
        #expect(GoldenCase.block("stdout", "") == "stdout: (empty)\n")
        #expect(GoldenCase.block("stdout", "a\n") == "stdout:\n| a\n")
        #expect(GoldenCase.block("stdout", "a\nb") == "stdout:\n| a\n| b\n\\ no newline at end\n")
    }
}
