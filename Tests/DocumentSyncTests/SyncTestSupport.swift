import DocumentSync
import DocumentStore
import DocumentTestModel
import Foundation
import PostgresNIO
import TestSupport
import Testing
import Synchronization

/// The PostgreSQL server the tests use: `TOOLKIT_POSTGRES_URL` (set by `ci/test`, or after
/// `ci/postgres start`). Without it the suites are skipped, with that reason printed.
enum TestServer {
    static let variable = "TOOLKIT_POSTGRES_URL"
    static let url: String? = ProcessInfo.processInfo.environment[variable]
    static var isAvailable: Bool { url != nil }
    static let skipReason: Comment = "\(variable) is not set: run `ci/postgres start` and export the address it writes, or run ci/test"

    static func address() throws -> PostgresAddress {
        try PostgresAddress(url: url ?? "postgres://toolkit@127.0.0.1:5432/postgres")
    }
}

/// The servers a test of replication's logic runs against, one run each (`@Test(arguments:
/// SyncServerKind.available)`): the in-memory twin always, PostgreSQL when `TOOLKIT_POSTGRES_URL` is
/// set (without it, its runs are left out rather than failed), and PostgreSQL with access control on
/// (`postgresAccess`: the schema made by the DBA's scripts, the test's role granted channel `*`, so
/// every push, feed page, checkpoint and purge goes through the schema's checked functions and must
/// behave exactly as the tables did).
enum SyncServerKind: String, Sendable, CustomTestStringConvertible {
    case memory, postgres, postgresAccess

    var testDescription: String { rawValue }

    /// Whether the replicas use a PostgreSQL server.
    var isPostgres: Bool { self != .memory }

    static var available: [SyncServerKind] { TestServer.isAvailable ? [.memory, .postgres, .postgresAccess] : [.memory] }
}

/// One test's corner of the server (a schema of its own, dropped at the end, or an
/// ``InMemoryReplicationServer`` of its own) and its replicas.
final class SyncFixture: @unchecked Sendable {
    let schema: String
    let address: PostgresAddress
    let folder: TemporaryFolder
    /// Which server the replicas synchronize with; `memory` is set for `.memory`.
    let server: SyncServerKind
    let memory: InMemoryReplicationServer?
    private var replicaCount = 0

    init(_ name: String, on server: SyncServerKind = .postgres, address: PostgresAddress? = nil) throws {
        schema = "t_\(name)_\(UInt32.random(in: 0...UInt32.max))".lowercased()
        self.address = try address ?? TestServer.address()
        folder = try TemporaryFolder(prefix: "sync-\(name)")
        self.server = server
        memory = server == .memory ? InMemoryReplicationServer() : nil
        if server == .postgresAccess { try Self.installAccessControl(schema: schema, address: self.address, in: folder) }
    }

    /// Creates `schema` as a DBA would, with access control on and the test's role granted every
    /// channel. Blocks the calling thread for psql (a fixture's setup, before any replica runs).
    static func installAccessControl(schema: String, address: PostgresAddress, in folder: TemporaryFolder) throws {
        let script = try DocumentSync.schemaScript(schema: schema) + (try DocumentSync.accessScript(schema: schema))
            + "INSERT INTO \"\(schema)\".channel_grants(role, channel, writable) VALUES (current_user, '*', true);\n"
        let file = folder.file("access-\(schema).sql")
        try script.write(to: file, atomically: false, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = address.resolvedPassword() ?? ""
        let bin = ProcessInfo.processInfo.environment["TOOLKIT_POSTGRES_BIN"] ?? "/usr/lib/postgresql/15/bin"
        let child = try ChildProcess.start(URL(fileURLWithPath: bin + "/psql"),
                                           ["-h", address.host, "-p", "\(address.port)", "-U", address.user, "-d", address.database,
                                            "-v", "ON_ERROR_STOP=1", "-q", "-f", file.path], environment: environment)
        let deadline = ContinuousClock.now + .seconds(120)
        while child.termination == nil && ContinuousClock.now < deadline {
            child.poll()
            usleep(2_000)
        }
        guard child.termination == .exited(0) else {
            child.kill(SIGKILL)
            throw child.error("psql (access control for \(schema)) ended with \(String(describing: child.termination))")
        }
    }

    /// A new local store, with the test kinds registered.
    func store(_ name: String? = nil, historyLimit: Int? = nil) throws -> Persistence {
        replicaCount += 1
        var configuration = PersistenceConfiguration(url: folder.file("\(name ?? "replica\(replicaCount)").sqlite"))
        if let historyLimit { configuration.revisionHistoryLimit = historyLimit }
        let persistence = try Persistence(configuration: configuration)
        persistence.register(persistableKind: Item.self)
        persistence.register(persistableKind: Counter.self)
        return persistence
    }

    func configuration(_ change: (inout DocumentSync.Configuration) -> Void = { _ in }) -> DocumentSync.Configuration {
        var configuration = DocumentSync.Configuration(address: address, schema: schema)
        configuration.batchSize = 100
        // The suite runs in parallel with everything else on two cores: a connection may wait long.
        configuration.connectTimeout = .seconds(60)
        change(&configuration)
        return configuration
    }

    func sync(_ persistence: Persistence, _ change: (inout DocumentSync.Configuration) -> Void = { _ in }) throws -> DocumentSync {
        if let memory { return try DocumentSync(persistence: persistence, configuration: configuration(change), server: memory) }
        return try DocumentSync(persistence: persistence, configuration: configuration(change))
    }

    /// Runs `body` with the server `sync` replicates through (on a connection of its own for PostgreSQL).
    func withServer<R>(for sync: DocumentSync, _ body: (any ReplicationServer) async throws -> R) async throws -> R {
        if let memory { return try await body(memory) }
        let session = try await ServerSession.open(address, connectTimeout: .seconds(60))
        do {
            let result = try await body(try await sync.server(on: session))
            await session.close()
            return result
        } catch {
            await session.close()
            throw error
        }
    }

    /// Runs SQL on the server (in this test's schema, named `S` in the text).
    func sql<each Column: PostgresDecodable & Sendable>(_ text: String, as types: (repeat each Column).Type) async throws -> [(repeat each Column)] {
        let session = try await ServerSession.open(address, connectTimeout: .seconds(60))
        do {
            let rows = try await session.rows(PostgresQuery(unsafeSQL: text.replacingOccurrences(of: "S.", with: "\"\(schema)\".")), as: types)
            await session.close()
            return rows
        } catch {
            await session.close()
            throw error
        }
    }

    func execute(_ text: String) async throws {
        let session = try await ServerSession.open(address, connectTimeout: .seconds(60))
        try? await session.execute(PostgresQuery(unsafeSQL: text.replacingOccurrences(of: "S.", with: "\"\(schema)\".")))
        await session.close()
    }

    /// Runs one statement on the server (in this test's schema, named `S`), throwing what fails.
    func run(_ text: String) async throws {
        let session = try await ServerSession.open(address, connectTimeout: .seconds(60))
        do {
            try await session.execute(PostgresQuery(unsafeSQL: text.replacingOccurrences(of: "S.", with: "\"\(schema)\".")))
            await session.close()
        } catch {
            await session.close()
            throw error
        }
    }

    /// `SELECT count(*) FROM` the rest (in this test's schema, named `S`).
    func count(_ from: String) async throws -> Int {
        let rows: [Int64] = try await sql("SELECT count(*) FROM " + from, as: Int64.self)
        return Int(rows.first ?? -1)
    }

    /// Removes the test's schema from the server (nothing to do in memory).
    func dropSchema() async {
        guard server.isPostgres else { return }
        try? await execute("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE")
        // The access-control script's group role (cluster-wide).
        if server == .postgresAccess { try? await execute("DROP ROLE IF EXISTS \"\(schema)_replica\"") }
    }
}

extension Persistence {
    /// Each document's winner: identifier → (revision, deleted), from the local store.
    func winners() throws -> [String: String] {
        var result: [String: String] = [:]
        var position: Int64 = 0
        while true {
            let page = try outgoing(since: position, limit: 10_000, kinds: nil)
            for document in page.documents {
                let current = document.leaves.max { Revision.beats(($1.revision, $1.deleted), ($0.revision, $0.deleted)) }!
                result[document.identifier] = current.revision + (current.deleted ? " deleted" : "")
            }
            position = page.lastSequence
            if !page.hasMore { return result }
        }
    }
}

/// A PostgreSQL cluster of one test's own, from `ci/postgres` (for tests that crash or stop the server).
final class OwnCluster: Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("ci/postgres").path
    let folder: String
    let address: PostgresAddress

    private init(folder: String, address: PostgresAddress) {
        self.folder = folder
        self.address = address
    }

    static func start() async throws -> OwnCluster {
        let lines = try await run(["start"])
        guard let folder = lines.last, !folder.isEmpty else { throw ChildProcessError(description: "ci/postgres start printed no folder") }
        let url = try String(contentsOfFile: folder + "/url", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return OwnCluster(folder: folder, address: try PostgresAddress(url: url))
    }

    /// Runs `body` with a cluster of its own, stopped and removed afterwards whether `body` succeeds or not.
    static func with(_ body: (OwnCluster) async throws -> Void) async throws {
        let cluster = try await start()
        do {
            try await body(cluster)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    /// Stops the server the way a power cut would.
    func crash() async throws { _ = try await Self.run(["crash", folder]) }
    func restart() async throws { _ = try await Self.run(["restart", folder]) }
    func stop() async { _ = try? await Self.run(["stop", folder]) }

    @discardableResult
    private static func run(_ arguments: [String]) async throws -> [String] {
        let child = try ChildProcess.start(URL(fileURLWithPath: "/bin/bash"), [script] + arguments)
        let end = try await child.waitForExit(deadline: .now + .seconds(180))
        guard end == .exited(0) else { throw child.error("ci/postgres \(arguments.joined(separator: " ")) ended with \(end)") }
        return child.outputLines
    }
}

/// Every status a continuous replicator reported, for tests to wait on.
final class StatusLog: Sendable {
    private final class Storage: Sendable {
        let entries = Mutex<[SyncStatus]>([])
    }
    private let storage = Storage()
    private let consumer: Task<Void, Never>

    init(_ stream: AsyncStream<SyncStatus>) {
        let storage = storage
        consumer = Task { for await status in stream { storage.entries.withLock { $0.append(status) } } }
    }

    var all: [SyncStatus] { storage.entries.withLock { $0 } }

    /// Waits until a status after position `start` matches; returns its position. Fails after `deadline`.
    @discardableResult
    func wait(after start: Int = -1, deadline: Duration, _ what: String, where predicate: (SyncStatus) -> Bool) async throws -> Int {
        let end = ContinuousClock.now + deadline
        while ContinuousClock.now < end {
            let found = storage.entries.withLock { list in list.indices.first { $0 > start && predicate(list[$0]) } }
            if let found { return found }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ChildProcessError(description: "no \(what) status within \(deadline); saw \(all)")
    }
}

extension SyncFixture {
    /// The server's documents whose row disagrees with `winner()` (the tree's winning leaf), as
    /// `id: documents says …, the tree says …` lines (empty in a sound schema).
    func winnerMismatches() async throws -> [String] {
        if let memory {
            // Checked against Swift's rule (the replicas'), not the twin's own winner function.
            let contents = memory.contents
            return contents.documents.keys.sorted().compactMap { id in
                let row = contents.documents[id]!
                let tree = (contents.revisions[id] ?? [:]).filter(\.value.leaf).map { (revision: $0.key, deleted: $0.value.deleted) }
                    .max { Revision.beats($1, $0) }
                guard tree?.revision != row.winner || tree?.deleted != row.deleted else { return nil }
                return "\(id): documents says \(row.winner) \(row.deleted), the tree says \(tree.map { "\($0.revision) \($0.deleted)" } ?? "nothing")"
            }
        }
        return try await sql("""
            SELECT d.id || ': documents says ' || d.winner || ' ' || d.deleted || ', the tree says ' || coalesce(w.revision, 'nothing') || ' ' || coalesce(w.deleted::text, '')
            FROM S.documents AS d LEFT JOIN LATERAL (SELECT * FROM S.winner(d.id)) AS w ON true
            WHERE w.revision IS DISTINCT FROM d.winner OR w.deleted IS DISTINCT FROM d.deleted
            ORDER BY d.id
            """, as: String.self)
    }

    /// The server's leaves of each document, sorted, as `revision` or `revision deleted`.
    func serverLeaves() async throws -> [String: [String]] {
        if let memory {
            return memory.contents.revisions.compactMapValues { nodes in
                let leaves = nodes.filter(\.value.leaf).map { $0.key + ($0.value.deleted ? " deleted" : "") }.sorted()
                return leaves.isEmpty ? nil : leaves
            }
        }
        let rows = try await sql("SELECT document, revision, deleted FROM S.revisions WHERE leaf ORDER BY document, revision",
                                 as: (String, String, Bool).self)
        var leaves: [String: [String]] = [:]
        for row in rows { leaves[row.0, default: []].append(row.1 + (row.2 ? " deleted" : "")) }
        return leaves
    }
}

extension Persistence {
    /// The leaves of every document of the store, sorted, as `revision` or `revision deleted`.
    func allLeaves() throws -> [String: [String]] {
        var leaves: [String: [String]] = [:]
        var position: Int64 = 0
        while true {
            let page = try outgoing(since: position, limit: 10_000, kinds: nil)
            for document in page.documents {
                leaves[document.identifier] = document.leaves.map { $0.revision + ($0.deleted ? " deleted" : "") }.sorted()
            }
            position = page.lastSequence
            if !page.hasMore { return leaves }
        }
    }
}

extension SyncFixture {
    /// Each document's row on the server: identifier → `winner` or `winner deleted`.
    func serverWinners() async throws -> [String: String] {
        if let memory { return memory.contents.documents.mapValues { $0.winner + ($0.deleted ? " deleted" : "") } }
        let rows = try await sql("SELECT id, winner, deleted FROM S.documents", as: (String, String, Bool).self)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.1 + ($0.2 ? " deleted" : "")) })
    }

    /// How many documents the server has (only those whose winner is not a deletion when `live`).
    func documentCount(live: Bool = false) async throws -> Int {
        if let memory { return memory.contents.documents.values.filter { !live || !$0.deleted }.count }
        return try await count("S.documents" + (live ? " WHERE NOT deleted" : ""))
    }

    /// How many purge records the server has.
    func purgeCount() async throws -> Int {
        if let memory { return memory.contents.purges.count }
        return try await count("S.purges")
    }

    /// How many leaves of `document` on the server are not deletions.
    func liveLeafCount(of document: String) async throws -> Int {
        if let memory { return (memory.contents.revisions[document] ?? [:]).values.filter { $0.leaf && !$0.deleted }.count }
        return try await count("S.revisions WHERE document = '\(document)' AND leaf AND NOT deleted")
    }

    /// The bodies of `document`'s leaves on the server, exactly as kept.
    func leafBodies(of document: String) async throws -> [String] {
        if let memory { return (memory.contents.revisions[document] ?? [:]).values.filter(\.leaf).compactMap(\.body) }
        return try await sql("SELECT body FROM S.revisions WHERE document = '\(document)' AND leaf", as: String.self)
    }

    /// Everything the server keeps about the documents (trees, rows with feed positions, the counter),
    /// in a stable order.
    func serverState() async throws -> [String] {
        if let memory {
            let contents = memory.contents
            // In PostgreSQL's order: bytes (COLLATE "C").
            let byBytes = { (a: String, b: String) in a.utf8.lexicographicallyPrecedes(b.utf8) }
            let revisions = contents.revisions.keys.sorted(by: byBytes).flatMap { document in
                contents.revisions[document]!.sorted { byBytes($0.key, $1.key) }.map { revision, node in
                    "\(document) \(revision) \(node.parent ?? "-") \(node.deleted) \(node.leaf) \(node.body ?? "-")"
                }
            }
            let documents = contents.documents.keys.sorted(by: byBytes).map { "\($0) \(contents.documents[$0]!.winner) \(contents.documents[$0]!.sequence)" }
            return revisions + documents + ["\(contents.feed)"]
        }
        let revisions = try await sql("""
            SELECT document || ' ' || revision || ' ' || coalesce(parent, '-') || ' ' || deleted || ' ' || leaf || ' ' || coalesce(body, '-')
            FROM S.revisions ORDER BY document, revision
            """, as: String.self)
        let documents = try await sql("SELECT id || ' ' || winner || ' ' || sequence FROM S.documents ORDER BY id", as: String.self)
        let feed = try await sql("SELECT value::text FROM S.feed", as: String.self)
        return revisions + documents + feed
    }

    /// Removes the server's checkpoints of every replication but `identity` (a server that lost rows).
    func removeCheckpoints(except identity: String) async throws {
        if let memory { return memory.removeCheckpoints { $0 != identity } }
        try await execute("DELETE FROM S.checkpoints WHERE replication <> '\(identity)'")
    }
}
