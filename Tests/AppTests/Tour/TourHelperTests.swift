import CommandSupport
import Foundation
import Testing
import TestSupport
@testable import TourKit

/// The tour's own helpers: a check that did not hold, waiting on a deadline, second processes, and the
/// steps' runner. Each must fail when its condition fails or its deadline passes.
@Suite struct TourHelperTests {
    // MARK: check

    @Test func checkThrowsItsMessageOnlyWhenTheConditionFails() throws {
        #expect(throws: Never.self) { try check(true, "never built") }
        let evaluated = Flag()
        try check(1 + 1 == 2, { evaluated.raise(); return "message" }())
        #expect(evaluated.count == 0, "the message was built for a condition that held")

        let error = #expect(throws: TourFailure.self) { try check(1 + 1 == 3, "expected 3, got \(1 + 1)") }
        #expect(error?.description == "expected 3, got 2")
        #expect(describe(TourFailure("what failed")) == "what failed")
    }

    // MARK: waitFor

    @Test func waitForReturnsOnceTheConditionHolds() async {
        #expect(waitFor(seconds: 0) { true }, "a condition that holds at once")
        let flag = Flag()
        let setter = Thread { usleep(50_000); flag.raise() }
        setter.start()
        let started = ContinuousClock.now
        #expect(waitFor(seconds: 30) { flag.count == 1 }, "a condition another thread makes true")
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func waitForGivesUpAtTheDeadline() {
        let started = ContinuousClock.now
        let asked = Flag()
        let held = waitFor(seconds: 0.2, every: 5) { asked.raise(); return false }
        let waited = ContinuousClock.now - started
        #expect(!held, "a condition that never holds")
        #expect(waited >= .milliseconds(200), "gave up after \(waited)")
        #expect(waited < .seconds(20), "waited \(waited) for a 0.2 s deadline")
        #expect(asked.count >= 2, "the condition was asked \(asked.count) times")
    }

    @Test func waitForAsksOnceMoreAtTheDeadline() {
        // A condition that holds only from its second question, with a deadline already past at the first.
        let asked = Flag()
        #expect(waitFor(seconds: 0) { asked.raise(); return asked.count >= 2 })
        #expect(asked.count == 2)
    }

    // MARK: Second processes

    let shell = URL(fileURLWithPath: "/bin/sh")

    @Test func runWatcherReturnsWhatTheWatcherPrintedAfterTheChange() throws {
        let temp = try TemporaryFolder(prefix: "tour-watcher")
        let signal = temp.file("changed")
        let script = "echo ready; while [ ! -e \"$1\" ]; do sleep 0.01; done; echo saw the change"
        var changed = false
        let lines = try runWatcher(shell, ["-c", script, "sh", signal.path], log: temp.file("log.txt"), readyPrefix: "ready",
                                   startSeconds: 30, endSeconds: 30) {
            changed = true
            try Data().write(to: signal)
        }
        #expect(changed)
        #expect(lines == ["ready", "saw the change"])
        #expect(try String(contentsOf: temp.file("log.txt"), encoding: .utf8) == "ready\nsaw the change\n")
    }

    @Test func runWatcherFailsWhenTheWatcherNeverGetsReady() throws {
        let temp = try TemporaryFolder(prefix: "tour-watcher")
        var changed = false
        // Ends without the ready line: noticed when it ends, not at the deadline.
        let started = ContinuousClock.now
        let ended = #expect(throws: TourFailure.self) {
            try runWatcher(shell, ["-c", "echo starting; exit 0"], log: temp.file("a.txt"), readyPrefix: "ready",
                           startSeconds: 60) { changed = true }
        }
        #expect(ended?.description.hasPrefix("the watching process did not start") == true, "\(String(describing: ended))")
        #expect(ContinuousClock.now - started < .seconds(30))
        // Never ends and never gets ready: the deadline.
        let silent = #expect(throws: TourFailure.self) {
            try runWatcher(shell, ["-c", "sleep 30"], log: temp.file("b.txt"), readyPrefix: "ready", startSeconds: 0.2) { changed = true }
        }
        #expect(silent?.description.hasPrefix("the watching process did not start") == true)
        #expect(!changed, "the change ran although the watcher was not ready")
    }

    @Test func runWatcherFailsWhenTheWatcherDoesNotEndOrFails() throws {
        let temp = try TemporaryFolder(prefix: "tour-watcher")
        let started = ContinuousClock.now
        let hanging = #expect(throws: TourFailure.self) {
            try runWatcher(shell, ["-c", "echo ready; sleep 30"], log: temp.file("a.txt"), readyPrefix: "ready",
                           startSeconds: 30, endSeconds: 0.3) {}
        }
        #expect(hanging?.description.hasPrefix("the watching process did not report the change") == true, "\(String(describing: hanging))")
        #expect(ContinuousClock.now - started < .seconds(25), "runWatcher waited for a process it should have given up on")
        let failing = #expect(throws: TourFailure.self) {
            try runWatcher(shell, ["-c", "echo ready; read line; exit 3"], log: temp.file("b.txt"), readyPrefix: "ready",
                           startSeconds: 30, endSeconds: 30) {}
        }
        #expect(failing?.description == "the watching process failed with status 3", "\(String(describing: failing))")
        let thrown = #expect(throws: TourFailure.self) {
            try runWatcher(shell, ["-c", "echo ready; sleep 30"], log: temp.file("c.txt"), readyPrefix: "ready") {
                throw TourFailure("the change failed")
            }
        }
        #expect(thrown?.description == "the change failed")
    }

    @Test func runProcessReturnsTheOutputOrFailsWithIt() throws {
        #expect(try runProcess(shell, ["-c", "echo one; echo two"]) == "one\ntwo\n")
        let failure = #expect(throws: TourFailure.self) { try runProcess(shell, ["-c", "echo partial; exit 4"]) }
        #expect(failure?.description.contains("failed with status 4: partial") == true, "\(String(describing: failure))")
    }

    // MARK: The tour's runner

    /// A step that fails, for the summary.
    struct FailingStep: TourStep {
        var name: String { "Failing" }
        var summary: String { "always fails" }
        func run(_ context: TourContext) throws {
            context.say("about to fail")
            try check(false, "this step fails")
        }
    }

    @Test @MainActor func stepsRunInProcessAndAFailureIsReportedNotFatal() async throws {
        let temp = try TemporaryFolder(prefix: "tour-steps")
        let (streams, captured) = CommandStreams.capturing()
        let failed = await Tour.runSteps([PlistCodecStep(), FailingStep(), PlistStep()], in: temp.url, streams: streams,
                                   program: Tour.currentProgram)
        #expect(failed == 1, "\(captured.output)")
        let lines = captured.outputLines
        #expect(lines.contains("== 1/3 PlistCodec: \(PlistCodecStep().summary)"), "\(captured.output)")
        #expect(lines.contains("  about to fail") && lines.contains("  FAILED: this step fails"), "\(captured.output)")
        #expect(lines.contains { $0.hasPrefix("  ok     PlistCodec (") } && lines.contains { $0.hasPrefix("  FAILED Failing (") }
                && lines.contains { $0.hasPrefix("  ok     Plist (") }, "\(captured.output)")
        #expect(lines.last == "tour: 2 of 3 steps passed; files are in \(temp.url.path)")
        #expect(FileManager.default.fileExists(atPath: temp.folder("Plist").appendingPathComponent("Info.plist").path))
    }

    /// The DocumentSync step starts its server with `ci/postgres`, found from its own source file: a
    /// wrong path silently skips the step ("PostgreSQL 15 is not installed").
    @Test func theDocumentSyncStepFindsCiPostgres() {
        #expect(FileManager.default.isExecutableFile(atPath: DocumentSyncStep.script.path)
                || FileManager.default.fileExists(atPath: DocumentSyncStep.script.path), "\(DocumentSyncStep.script.path)")
        #expect(DocumentSyncStep.script.path == Fixtures.root.deletingLastPathComponent().appendingPathComponent("ci/postgres").path)
    }

    @Test @MainActor func optionsAndChildFlags() async throws {
        let help = await TourKit.Tour.runCaptured(["--help"])
        #expect(help.status == 0 && help.output == TourOptions.usage + "\n", "\(help)")
        let unknown = await TourKit.Tour.runCaptured(["--fast"])
        #expect(unknown.status == 2 && unknown.output.hasPrefix("unknown argument --fast\n"), "\(unknown)")

        // The child flags make the tour the `shapes` (or `orders`) command, as its second process does.
        let store = try TemporaryFolder(prefix: "tour-child")
        let added = await TourKit.Tour.runCaptured([DocumentStoreStep.childFlag, "add", "circle", "1", "--store", store.url.path])
        #expect(added.status == 0 && added.outputLines.count == 1, "\(added)")
        let missing = await TourKit.Tour.runCaptured([ManagedStorageStep.childFlag, "delete", "--folder", store.url.path, "9"])
        #expect(missing.status == 1 && missing.errors == "orders: there is no order #9\n", "\(missing)")
    }
}

extension Tour {
    /// Runs the tour's command line in-process with captured streams.
    @MainActor
    static func runCaptured(_ arguments: [String]) async -> CommandRun {
        let (streams, captured) = CommandStreams.capturing()
        let status = await run(arguments: arguments, streams: streams)
        return CommandRun(arguments: arguments, status: status, output: captured.output, errors: captured.errors)
    }
}
