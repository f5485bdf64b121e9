import DocumentStore
import DocumentSync
import Foundation
import ShapesKit

/// DocumentSync: two shapes folders edited offline, then synchronized through a throwaway PostgreSQL
/// server (`ci/postgres start`), one in this process and one as `shapes sync` in a second process.
struct DocumentSyncStep: TourStep {
    var name: String { "DocumentSync" }
    var summary: String {
        "two shapes folders edited offline, synchronized through PostgreSQL (a throwaway server), with a continuous replicator listening"
    }

    /// `ci/postgres` in this package (the tour runs from its checkout: `swift run tour`).
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // TourKit
        .deletingLastPathComponent()   // tour
        .deletingLastPathComponent()   // Apps
        .deletingLastPathComponent()   // the package
        .appendingPathComponent("ci/postgres")

    @MainActor func run(_ context: TourContext) async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/15/bin/initdb"),
              FileManager.default.fileExists(atPath: Self.script.path) else {
            context.say("PostgreSQL 15 is not installed, so this step is skipped. To run it: `bash ci/postgres install`")
            context.say("(Debian's postgresql), or point `shapes sync --postgres postgres://USER@HOST/DB` at a server you have.")
            return
        }
        let server = try Self.shell(["start"]).split(separator: "\n").last.map(String.init) ?? ""
        defer { _ = try? Self.shell(["stop", server]) }
        let url = try String(contentsOfFile: server + "/url", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let address = try PostgresAddress(url: url)
        context.say("started a throwaway PostgreSQL at \(address) (ci/postgres start)")

        // Offline: each folder makes its own shapes.
        let one = try ShapesStore.open(folder: context.folder.appendingPathComponent("one"))
        let twoFolder = context.folder.appendingPathComponent("two")
        let two = try ShapesStore.open(folder: twoFolder)
        try one.save(Square(side: 2))
        try one.save(Circle(radius: 1))
        try two.save(Circle(radius: 3))
        context.say("offline: folder one has a square and a circle, folder two a circle")

        var configuration = DocumentSync.Configuration(address: address, schema: "tour_shapes")
        let syncOne = try DocumentSync(persistence: one, configuration: configuration)
        let first = try await syncOne.run()
        context.say("folder one, in this process: \(first)")
        // Folder two syncs as a second process, `shapes sync`, its password in PGPASSWORD (never on the command line).
        let plain = "postgres://\(address.user)@\(address.host):\(address.port)/\(address.database)"
        let output = try Self.shapes(context, ["sync", "--postgres", plain, "--schema", "tour_shapes", "--store", twoFolder.path],
                                     password: address.password ?? "")
        context.say("folder two, as `shapes sync`: \(output.trimmingCharacters(in: .whitespacesAndNewlines))")

        // Folder one keeps a continuous replicator: LISTEN/NOTIFY wakes it when folder two pushes.
        configuration.maximumInterval = .seconds(60)
        let continuous = try DocumentSync(persistence: one, configuration: configuration)
        let statuses = continuous.start()
        let drained = Task.detached { for await _ in statuses {} }
        let late = try ShapesStore.open(folder: twoFolder)
        let circle = Circle(radius: 5)
        try late.save(circle)
        let lateSync = try DocumentSync(persistence: late, configuration: configuration)
        _ = try await lateSync.run()
        _ = waitFor(seconds: 30, every: 20) { (try? one.snapshot(circle.identifier)) != nil }
        try check(try one.snapshot(circle.identifier) != nil, "the continuous replicator did not pull the new circle")
        context.say("folder two added a circle of radius 5; folder one's continuous replicator pulled it")
        await continuous.stop()
        drained.cancel()

        let reopened = try ShapesStore.open(folder: twoFolder)
        let inOne = try one.query(Shape.self).identifiers().sorted()
        let inTwo = try reopened.query(Shape.self).identifiers().sorted()
        try check(inOne == inTwo && inOne.count == 4, "the folders differ: \(inOne) and \(inTwo)")
        context.say("both folders now hold the same \(inOne.count) shapes")
    }

    /// Runs `ci/postgres` with `arguments`; returns its standard output.
    static func shell(_ arguments: [String]) throws -> String {
        try launch(URL(fileURLWithPath: "/bin/bash"), [script.path] + arguments, environment: nil)
    }

    /// Runs the tour's `shapes` command as a second process.
    static func shapes(_ context: TourContext, _ arguments: [String], password: String) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = password
        return try launch(context.program, [DocumentStoreStep.childFlag] + arguments, environment: environment)
    }

    /// Runs a program and returns its standard output (kept in a file, not a pipe: the server that
    /// `ci/postgres start` leaves running must not hold our end open). `posix_spawn` and `waitpid`
    /// rather than `Process`, whose `waitUntilExit` can miss a child's exit once other threads run.
    private static func launch(_ executable: URL, _ arguments: [String], environment: [String: String]?) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tour-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        try check(spawned == 0, "cannot start \(executable.path): error \(spawned)")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        try check(exited && (status >> 8) & 0xff == 0, "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        return text
    }
}
