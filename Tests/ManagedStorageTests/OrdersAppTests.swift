import Foundation
import Testing
import TestSupport

/// The `orders` sample app, built by `ci/test` and run end to end as its README shows.
@Suite struct OrdersAppTests {
    func run(_ arguments: [String]) async throws -> ChildProcess {
        let child = try ChildProcess.start(try ChildProcess.builtProgram("orders"), arguments)
        _ = try await child.waitForExit(deadline: .now + .seconds(60))
        return child
    }

    @Test func generateImportListSetStatusDelete() async throws {
        let folder = try TemporaryFolder(prefix: "orders-app")
        let generated = try await run(["generate", "300", "--seed", "3"])
        #expect(generated.termination == .exited(0))
        let json = folder.file("orders.json")
        try Data(generated.standardOutput.utf8).write(to: json)
        let store = folder.folder("store").path

        let imported = try await run(["import", "--folder", store, json.path])
        #expect(imported.outputLines.first?.hasPrefix("imported 300 orders (300 new, 0 updated)") == true, "\(imported.standardOutput)")
        #expect(imported.standardError.isEmpty, "no progress bar when standard error is not a terminal")

        let listed = try await run(["list", "--folder", store, "--status", "processing", "--sort", "total", "--descending"])
        let lines = listed.outputLines
        #expect(!lines.isEmpty && lines.allSatisfy { $0.contains(" processing ") }, "\(lines)")
        let totals = lines.compactMap { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.flatMap { Double($0) } }
        #expect(totals == totals.sorted(by: >) && totals.count == lines.count)
        let id = try #require(lines.first?.split(separator: " ").first?.dropFirst())

        let set = try await run(["set-status", "--folder", store, String(id), "completed"])
        #expect(set.outputLines == ["order #\(id): processing → completed"])
        let after = try await run(["list", "--folder", store, "--status", "processing"])
        #expect(after.outputLines.count == lines.count - 1)

        let deleted = try await run(["delete", "--folder", store, String(id)])
        #expect(deleted.outputLines.first?.hasPrefix("deleted order #\(id) and its ") == true)
        let again = try await run(["delete", "--folder", store, String(id)])
        #expect(again.termination == .exited(1) && again.standardError.contains("there is no order #\(id)"))

        let reimported = try await run(["import", "--folder", store, json.path])
        #expect(reimported.outputLines.first?.hasPrefix("imported 300 orders (1 new, 299 updated)") == true, "\(reimported.standardOutput)")
        let bad = try await run(["import", "--folder", store, "/nonexistent.json"])
        #expect(bad.termination == .exited(64))
    }

    @Test func watchPrintsWhatAnotherProcessChanges() async throws {
        let folder = try TemporaryFolder(prefix: "orders-watch")
        let generated = try await run(["generate", "20", "--seed", "5"])
        let json = folder.file("orders.json")
        try Data(generated.standardOutput.utf8).write(to: json)
        let store = folder.folder("store").path
        _ = try await run(["import", "--folder", store, json.path])

        let watcher = try ChildProcess.start(try ChildProcess.builtProgram("orders"),
                                             ["watch", "--folder", store, "--count", "3", "--seconds", "60"])
        let ready = try await watcher.waitForLine(deadline: .now + .seconds(60)) { $0.hasPrefix("watching") }
        #expect(ready.hasPrefix("watching 20 orders in "))
        let set = try await run(["set-status", "--folder", store, "4", "zz-test"])  // a new section: a delete and an insert
        #expect(set.termination == .exited(0))
        let deleted = try await run(["delete", "--folder", store, "7"])
        #expect(deleted.termination == .exited(0))
        let ended = try await watcher.waitForExit(deadline: .now + .seconds(60))
        #expect(ended == .exited(0), "\(watcher.standardError)")
        let changes = watcher.outputLines.dropFirst()
        #expect(changes.contains { $0.hasPrefix("insert") && $0.contains("#4 zz-test") }, "\(watcher.outputLines)")
        #expect(changes.contains { $0.hasPrefix("delete") && $0.contains("#7 ") }, "\(watcher.outputLines)")
    }
}
