import Foundation
import OrdersKit
import Testing
import TestSupport

/// The `orders` sample app run as its README shows: its commands in-process, and the built program
/// where another process is the point.
@Suite struct OrdersAppTests {
    /// Runs `orders arguments` in-process.
    func run(_ arguments: [String]) async -> CommandRun {
        await OrdersCommand.runCaptured(arguments)
    }

    /// Generates `count` orders into `folder/orders.json` and imports them into `folder/store`; returns the store's path.
    func importedStore(_ count: Int, seed: Int, in folder: TemporaryFolder) async throws -> String {
        let generated = await run(["generate", "\(count)", "--seed", "\(seed)"])
        #expect(generated.status == 0, "\(generated)")
        let json = folder.file("orders.json")
        try Data(generated.output.utf8).write(to: json)
        let store = folder.folder("store").path
        let imported = await run(["import", "--folder", store, json.path])
        #expect(imported.status == 0, "\(imported)")
        return store
    }

    @Test func generateImportListSetStatusDelete() async throws {
        let folder = try TemporaryFolder(prefix: "orders-app")
        let generated = await run(["generate", "300", "--seed", "3"])
        #expect(generated.status == 0)
        let json = folder.file("orders.json")
        try Data(generated.output.utf8).write(to: json)
        let store = folder.folder("store").path

        let imported = await run(["import", "--folder", store, json.path])
        #expect(imported.outputLines.first?.hasPrefix("imported 300 orders (300 new, 0 updated)") == true, "\(imported.output)")
        #expect(imported.errors.isEmpty, "no progress bar when standard error is not a terminal")

        let listed = await run(["list", "--folder", store, "--status", "processing", "--sort", "total", "--descending"])
        let lines = listed.outputLines
        #expect(!lines.isEmpty && lines.allSatisfy { $0.contains(" processing ") }, "\(lines)")
        let totals = lines.compactMap { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.flatMap { Double($0) } }
        #expect(totals == totals.sorted(by: >) && totals.count == lines.count)
        let id = try #require(lines.first?.split(separator: " ").first?.dropFirst())

        let set = await run(["set-status", "--folder", store, String(id), "completed"])
        #expect(set.outputLines == ["order #\(id): processing → completed"])
        let after = await run(["list", "--folder", store, "--status", "processing"])
        #expect(after.outputLines.count == lines.count - 1)

        let deleted = await run(["delete", "--folder", store, String(id)])
        #expect(deleted.outputLines.first?.hasPrefix("deleted order #\(id) and its ") == true)
        let again = await run(["delete", "--folder", store, String(id)])
        #expect(again.status == 1 && again.errors.contains("there is no order #\(id)"), "\(again)")

        let reimported = await run(["import", "--folder", store, json.path])
        #expect(reimported.outputLines.first?.hasPrefix("imported 300 orders (1 new, 299 updated)") == true, "\(reimported.output)")
        let bad = await run(["import", "--folder", store, "/nonexistent.json"])
        #expect(bad.status == 64)
    }

    @Test func theProgramsExitStatusAndStandardError() async throws {
        let folder = try TemporaryFolder(prefix: "orders-program")
        let missing = try await BuiltProgram.run("orders", ["delete", "--folder", folder.url.path, "7"])
        #expect(missing.termination == .exited(1) && missing.errors == "orders: there is no order #7\n" && missing.output.isEmpty,
                "\(missing)")
        let bad = try await BuiltProgram.run("orders", ["generate", "--", "-1"])
        #expect(bad.termination == .exited(64) && bad.errors.contains("the count cannot be negative"), "\(bad)")
    }

    @Test func watchPrintsWhatAnotherProcessChanges() async throws {
        let folder = try TemporaryFolder(prefix: "orders-watch")
        let store = try await importedStore(20, seed: 5, in: folder)

        let watcher = try ChildProcess.start(try ChildProcess.builtProgram("orders"),
                                             ["watch", "--folder", store, "--count", "3", "--seconds", "600"])
        let ready = try await watcher.waitForLine(deadline: .now + .seconds(180)) { $0.hasPrefix("watching") }
        #expect(ready.hasPrefix("watching 20 orders in "))
        let set = try await BuiltProgram.run("orders", ["set-status", "--folder", store, "4", "zz-test"])  // a new section: a delete and an insert
        #expect(set.termination == .exited(0))
        let deleted = try await BuiltProgram.run("orders", ["delete", "--folder", store, "7"])
        #expect(deleted.termination == .exited(0))
        let ended = try await watcher.waitForExit(deadline: .now + .seconds(180))
        #expect(ended == .exited(0), "\(watcher.standardError)")
        let changes = watcher.outputLines.dropFirst()
        #expect(changes.contains { $0.hasPrefix("insert") && $0.contains("#4 zz-test") }, "\(watcher.outputLines)")
        #expect(changes.contains { $0.hasPrefix("delete") && $0.contains("#7 ") }, "\(watcher.outputLines)")
    }

    @Test func watchInProcessPrintsChangesAndEndsWhenCancelled() async throws {
        let folder = try TemporaryFolder(prefix: "orders-watch-task")
        let store = try await importedStore(10, seed: 9, in: folder)
        let watch = OrdersCommand.start(["watch", "--folder", store])
        let ready = try await watch.waitForLine(deadline: .now + .seconds(180)) { $0.hasPrefix("watching") }
        #expect(ready.hasPrefix("watching 10 orders in "), "\(ready)")
        // Another manager in this process changes order 3: a new status is a new section.
        #expect(await run(["set-status", "--folder", store, "3", "zz-test"]).status == 0)
        try await watch.waitForLine(deadline: .now + .seconds(180)) { $0.hasPrefix("insert") && $0.contains("#3 zz-test") }

        // No --count, no --seconds: it would watch forever; cancelling its task ends it at once.
        watch.cancel()
        let status = try await watch.waitForExit(deadline: .now + .seconds(180))
        #expect(status == OrdersCommand.cancelledStatus, "\(watch.captured.errors)")
    }

    @Test func watchWithTooFewChangesFailsAfterItsTimeLimit() async throws {
        let folder = try TemporaryFolder(prefix: "orders-watch-time")
        let store = try await importedStore(5, seed: 2, in: folder)
        let started = ContinuousClock.now
        let watch = await run(["watch", "--folder", store, "--count", "1", "--seconds", "0.5"])
        #expect(watch.status == 1 && watch.errors == "orders: fewer changes than --count before --seconds passed\n", "\(watch)")
        #expect(watch.outputLines.count == 1 && watch.outputLines[0].hasPrefix("watching 5 orders"), "\(watch)")
        #expect(ContinuousClock.now - started >= .seconds(0.5))
    }
}
