import DocumentSync
import Foundation
import Testing
import TestSupport

@Suite("shapes sync", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct ShapesSyncTests {
    /// Runs the built `shapes` with the password in `PGPASSWORD`, as a person would; returns its output lines.
    static func shapes(_ arguments: [String], password: String?) async throws -> [String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = password
        let child = try ChildProcess.start(try ChildProcess.builtProgram("shapes"), arguments, environment: environment)
        let end = try await child.waitForExit(deadline: .now + .seconds(120))
        guard end == .exited(0) else { throw child.error("shapes \(arguments.joined(separator: " ")) ended with \(end)") }
        return child.outputLines
    }

    @Test("two shapes folders edit offline, sync to the same server, and end with the same documents")
    func twoFolders() async throws {
        let address = try TestServer.address()
        let url = "postgres://\(address.user)@\(address.host):\(address.port)/\(address.database)"
        let fixture = try SyncFixture("shapes")
        let schema = fixture.schema
        let folder = try TemporaryFolder(prefix: "shapes-sync")
        let one = folder.url.appendingPathComponent("one").path
        let two = folder.url.appendingPathComponent("two").path
        let circle = try await Self.shapes(["add", "circle", "2", "--store", one], password: nil)[0]
        _ = try await Self.shapes(["add", "square", "3", "--store", one], password: nil)
        _ = try await Self.shapes(["add", "circle", "1.5", "--store", two], password: nil)
        for store in [one, two, one] {
            let lines = try await Self.shapes(["sync", "--postgres", url, "--schema", schema, "--store", store], password: address.password)
            #expect(lines.count == 1 && lines[0].hasPrefix("synced with \(url):"), "\(lines)")
        }
        let venn = try await Self.shapes(["venn", circle, circle, "--store", two], password: nil)[0]
        for store in [two, one] {
            _ = try await Self.shapes(["sync", "--postgres", url, "--schema", schema, "--store", store], password: address.password)
        }
        let listOne = try await Self.shapes(["list", "--store", one], password: nil)
        let listTwo = try await Self.shapes(["list", "--store", two], password: nil)
        #expect(listOne.count == 3)
        #expect(listOne == listTwo)
        // The diagram made in folder two, of a circle made in folder one, shows in folder one.
        let shown = try await Self.shapes(["show", venn, "--store", one], password: nil)
        #expect(shown == (try await Self.shapes(["show", venn, "--store", two], password: nil)))
        #expect(shown.contains { $0.contains(circle) }, "\(shown)")
        // The password never needs to be on the command line, and is refused there.
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = nil
        let refused = try ChildProcess.start(try ChildProcess.builtProgram("shapes"),
                                             ["sync", "--postgres", "postgres://u:secret@127.0.0.1/db", "--store", one], environment: environment)
        #expect(try await refused.waitForExit(deadline: .now + .seconds(180)) == .exited(64))
        await fixture.dropSchema()
    }

    @Test("--print-user prints the library's user script, needs no server, and refuses an odd name")
    func printUser() async throws {
        let lines = try await Self.shapes(["sync", "--print-user", "alice", "--schema", "shapes_sync"], password: nil)
        #expect(lines.joined(separator: "\n") + "\n" == (try DocumentSync.userScript(user: "alice", schema: "shapes_sync")))
        #expect(lines.contains("CREATE ROLE \"alice\" LOGIN IN ROLE \"shapes_sync_replica\";"))
        let odd = try ChildProcess.start(try ChildProcess.builtProgram("shapes"), ["sync", "--print-user", "Robert'); DROP"])
        #expect(try await odd.waitForExit(deadline: .now + .seconds(60)) != .exited(0))
    }
}
