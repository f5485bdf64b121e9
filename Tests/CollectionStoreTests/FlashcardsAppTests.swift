import Foundation
import Testing
import TestSupport

/// The `flashcards` app, run as a program: the binary `ci/test` built beside the tests, each run with
/// `--folder` set to the test's own folder.
@Suite struct FlashcardsAppTests {
    struct Run: CustomStringConvertible {
        let arguments: [String]
        let termination: ChildTermination
        let output: String
        let errors: String

        var description: String { "flashcards \(arguments.joined(separator: " ")): \(termination)\nstdout: \(output)\nstderr: \(errors)" }
    }

    static func executable() throws -> URL {
        try ChildProcess.builtProgram("flashcards")
    }

    /// Runs `flashcards <subcommand> --folder <folder> <rest>`, with `input` on standard input.
    func flashcards(_ arguments: [String], folder: URL, input: String? = nil) async throws -> Run {
        let all = [arguments[0], "--folder", folder.path] + arguments.dropFirst()
        let child: ChildProcess
        if let input {
            // ChildProcess gives a child /dev/null as its input; a shell pipes the answers in.
            let script = "printf '%s' \"$1\" | { shift; exec \"$@\"; }"
            child = try ChildProcess.start(URL(fileURLWithPath: "/bin/sh"), ["-c", script, "sh", input, try Self.executable().path] + all)
        } else {
            child = try ChildProcess.start(try Self.executable(), all)
        }
        let termination = try await child.waitForExit(deadline: .now + .seconds(60))
        return Run(arguments: all, termination: termination, output: child.standardOutput, errors: child.standardError)
    }

    @Test func decksCardsListAndQuiz() async throws {
        let temp = try TemporaryFolder(prefix: "flashcards-app")
        let folder = temp.folder("library")   // made by the first write

        var run = try await flashcards(["add-deck", "Spanish"], folder: folder)
        #expect(run.termination == .exited(0) && run.output == "added deck \"Spanish\"\n", "\(run)")
        run = try await flashcards(["add-deck", "Spanish"], folder: folder)
        #expect(run.termination == .exited(64) && run.errors.contains("already exists"), "\(run)")

        for (front, back) in [("hola", "hello"), ("gracias", "thank you"), ("adiós", "goodbye")] {
            run = try await flashcards(["add-card", "Spanish", front, back], folder: folder)
            #expect(run.termination == .exited(0), "\(run)")
        }
        #expect(run.output == "added card \"adiós\" to \"Spanish\" (3 cards)\n", "\(run)")
        run = try await flashcards(["add-card", "French", "oui", "yes"], folder: folder)
        #expect(run.termination == .exited(64) && run.errors.contains("no deck named \"French\"; decks: Spanish"), "\(run)")

        run = try await flashcards(["list"], folder: folder)
        #expect(run.output == "Spanish: 3 cards\n", "\(run)")

        run = try await flashcards(["quiz", "Spanish"], folder: folder, input: "Hello\nthanks\n GOODBYE \n")
        #expect(run.termination == .exited(0), "\(run)")
        #expect(run.output == "hola? right\ngracias? wrong: thank you\nadiós? right\n2 of 3 right\n", "\(run)")

        // Wrong answers come first next time.
        run = try await flashcards(["quiz", "Spanish", "--count", "1"], folder: folder, input: "thank you\n")
        #expect(run.output == "gracias? right\n1 of 1 right\n", "\(run)")
        run = try await flashcards(["list", "Spanish"], folder: folder)
        #expect(run.output == """
            hola → hello  (1 review, last right)
            gracias → thank you  (2 reviews, last right)
            adiós → goodbye  (1 review, last right)

            """, "\(run)")

        // The files are what PropertyListEncoder writes for the same items.
        struct Card: Codable { var id: UUID; var deck: String; var front: String; var back: String; var created: Date; var reviews: Int; var lastCorrect: Bool? }
        let bytes = try Data(contentsOf: folder.appendingPathComponent("cards.plist"))
        let cards = try PropertyListDecoder().decode([Card].self, from: bytes)
        #expect(try PropertyListEncoder().encode(cards) == bytes)
        #expect(cards.map(\.reviews) == [1, 2, 1])
    }

    @Test func aDamagedFileIsReportedAndKept() async throws {
        let temp = try TemporaryFolder(prefix: "flashcards-app")
        let decks = temp.file("decks.plist")
        let damaged = Data("<plist><array><dict>".utf8)
        try damaged.write(to: decks)
        let run = try await flashcards(["add-deck", "Spanish"], folder: temp.url)
        #expect(run.termination == .exited(1), "\(run)")
        #expect(run.errors.contains("flashcards: cannot decode the items; the file was left unchanged: \(decks.path)"), "\(run)")
        #expect(try Data(contentsOf: decks) == damaged)
    }
}
