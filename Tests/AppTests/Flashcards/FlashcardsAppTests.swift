import FlashcardsKit
import Foundation
import Testing
import TestSupport

/// The `flashcards` app: its commands run in-process with `--folder` set to the test's own folder,
/// and the built program reading a quiz's answers from its real standard input.
@Suite struct FlashcardsAppTests {
    /// Runs `flashcards <subcommand> --folder <folder> <rest>` in-process, with `input` on standard input.
    func flashcards(_ arguments: [String], folder: URL, input: String = "") async -> CommandRun {
        let all = [arguments[0], "--folder", folder.path] + arguments.dropFirst()
        return await FlashcardsCommand.runCaptured(all, input: input)
    }

    @Test func decksCardsListAndQuiz() async throws {
        let temp = try TemporaryFolder(prefix: "flashcards-app")
        let folder = temp.folder("library")   // made by the first write

        var run = await flashcards(["add-deck", "Spanish"], folder: folder)
        #expect(run.status == 0 && run.output == "added deck \"Spanish\"\n", "\(run)")
        run = await flashcards(["add-deck", "Spanish"], folder: folder)
        #expect(run.status == 64 && run.errors.contains("already exists"), "\(run)")

        for (front, back) in [("hola", "hello"), ("gracias", "thank you"), ("adiós", "goodbye")] {
            run = await flashcards(["add-card", "Spanish", front, back], folder: folder)
            #expect(run.status == 0, "\(run)")
        }
        #expect(run.output == "added card \"adiós\" to \"Spanish\" (3 cards)\n", "\(run)")
        run = await flashcards(["add-card", "French", "oui", "yes"], folder: folder)
        #expect(run.status == 64 && run.errors.contains("no deck named \"French\"; decks: Spanish"), "\(run)")

        run = await flashcards(["list"], folder: folder)
        #expect(run.output == "Spanish: 3 cards\n", "\(run)")

        run = await flashcards(["quiz", "Spanish"], folder: folder, input: "Hello\nthanks\n GOODBYE \n")
        #expect(run.status == 0, "\(run)")
        #expect(run.output == "hola? right\ngracias? wrong: thank you\nadiós? right\n2 of 3 right\n", "\(run)")

        // Wrong answers come first next time.
        run = await flashcards(["quiz", "Spanish", "--count", "1"], folder: folder, input: "thank you\n")
        #expect(run.output == "gracias? right\n1 of 1 right\n", "\(run)")
        run = await flashcards(["list", "Spanish"], folder: folder)
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
        let run = await flashcards(["add-deck", "Spanish"], folder: temp.url)
        #expect(run.status == 1, "\(run)")
        #expect(run.errors.contains("flashcards: cannot decode the items; the file was left unchanged: \(decks.path)"), "\(run)")
        #expect(try Data(contentsOf: decks) == damaged)
    }

    @Test func theProgramReadsAnswersFromItsStandardInput() async throws {
        let temp = try TemporaryFolder(prefix: "flashcards-app")
        _ = await flashcards(["add-deck", "Spanish"], folder: temp.url)
        _ = await flashcards(["add-card", "Spanish", "hola", "hello"], folder: temp.url)
        _ = await flashcards(["add-card", "Spanish", "gracias", "thank you"], folder: temp.url)
        // ChildProcess gives a child /dev/null as its input; a shell pipes the answers in.
        let script = "printf '%s' \"$1\" | { shift; exec \"$@\"; }"
        let program = try ChildProcess.builtProgram("flashcards").path
        let child = try ChildProcess.start(URL(fileURLWithPath: "/bin/sh"),
                                           ["-c", script, "sh", "Hello\nthanks", program, "quiz", "--folder", temp.url.path, "Spanish"])
        let termination = try await child.waitForExit(deadline: .now + .seconds(180))
        #expect(termination == .exited(0), "\(child.standardError)")
        #expect(child.standardOutput == "hola? right\ngracias? wrong: thank you\n1 of 2 right\n", "\(child.standardOutput)")
        // No answer left for a card: the quiz ends there, counting what was asked.
        let short = try ChildProcess.start(URL(fileURLWithPath: "/bin/sh"),
                                           ["-c", script, "sh", "thank you\n", program, "quiz", "--folder", temp.url.path, "Spanish"])
        #expect(try await short.waitForExit(deadline: .now + .seconds(180)) == .exited(0), "\(short.standardError)")
        #expect(short.standardOutput == "gracias? right\nhola? \n1 of 1 right\n", "\(short.standardOutput)")
    }
}
