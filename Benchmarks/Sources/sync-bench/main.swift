// sync-bench: DocumentSync's push and pull of 100k documents of about 200 bytes through PostgreSQL on
// loopback, against raw postgres-nio on the same rows in the same process:
//   push peer: multi-row INSERT ... SELECT FROM unnest(arrays), one transaction per batch
//   pull peer: keyset-paged SELECT of the same rows, decoding every column
// Prints docs/s each way and the ratio (ours / raw). Needs a server: TOOLKIT_POSTGRES_URL, or
// --postgres URL (the password from PGPASSWORD or ~/.pgpass), or it starts one with ci/postgres.
//
//   swift build -c release --package-path Benchmarks --scratch-path Benchmarks/.build --product sync-bench
//   Benchmarks/.build/release/sync-bench [--documents 100000] [--batch 1000] [--runs 3]
import BenchSupport
import DocumentStore
import DocumentSync
import Foundation
import PostgresNIO

struct Options {
    var documents = 100_000
    var batch = 1000
    var runs = 3
    var postgres: String?
}

func parse(_ arguments: [String]) -> Options {
    var options = Options()
    var rest = arguments[...]
    while let flag = rest.popFirst() {
        guard let value = rest.popFirst() else { fatalError("\(flag) needs a value") }
        switch flag {
        case "--documents": options.documents = Int(value) ?? options.documents
        case "--batch": options.batch = Int(value) ?? options.batch
        case "--runs": options.runs = Int(value) ?? options.runs
        case "--postgres": options.postgres = value
        default: fatalError("unknown option \(flag); use --documents N --batch N --runs N --postgres URL")
        }
    }
    return options
}

/// A document for the benchmark: a body of about 200 bytes of canonical JSON.
final class Doc: Persistable {
    static let kind = "Doc"
    var identifier: String
    var body: JSON
    init(identifier: String, body: JSON) {
        self.identifier = identifier
        self.body = body
    }
    init?(with json: JSON, from persistence: Persistence) throws {
        identifier = ""
        body = json
    }
    func save(to: Persistence) throws { try to.save(self, document: body) }
}

func body(_ n: Int) -> JSON {
    ["title": .string("Document number \(n) of the benchmark"), "count": .integer(Int64(n)), "ratio": .double(Double(n) / 7),
     "tags": ["alpha", "beta", .string("tag-\(n % 97)")], "owner": ["name": "Ada Lovelace", "id": .integer(Int64(n % 1000))],
     "done": .bool(n % 2 == 0), "note": "about two hundred bytes"]
}

func elapsed(_ start: ContinuousClock.Instant) -> Double { seconds(ContinuousClock.now - start) }

/// A throwaway server from ci/postgres, when no address is given.
let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("ci/postgres").path

func throwawayServer() throws -> (url: String, folder: String) {
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("sync-bench-\(getpid()).out").path
    guard system("bash \(script) start > \(out)") == 0 else { fatalError("ci/postgres start failed") }
    let folder = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").last.map(String.init) ?? ""
    let url = try String(contentsOfFile: folder + "/url", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    return (url, folder)
}

let options = parse(Array(CommandLine.arguments.dropFirst()))
var started: String?
let url: String
if let given = options.postgres ?? ProcessInfo.processInfo.environment["TOOLKIT_POSTGRES_URL"] {
    url = given
} else {
    let server = try throwawayServer()
    url = server.url
    started = server.folder
}
let address = try PostgresAddress(url: url)
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-bench-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer {
    try? FileManager.default.removeItem(at: folder)
    if let started { _ = system("bash \(script) stop \(started)") }
}

// The rows, once: identifiers, revisions and canonical bodies, as DocumentStore stores them.
let source = try Persistence(configuration: PersistenceConfiguration(url: folder.appendingPathComponent("source.sqlite")))
source.register(persistableKind: Doc.self)
let makeStart = ContinuousClock.now
try source.transaction { store in
    for n in 0..<options.documents { try store.save(Doc(identifier: String(format: "doc-%07d", n), body: body(n))) }
}
let rows = try source.query(Doc.self).snapshots()
let averageBytes = rows.reduce(0) { $0 + $1.body.canonicalText.utf8.count } / max(1, rows.count)
print("sync-bench: \(rows.count) documents of \(averageBytes) bytes (made in \(String(format: "%.1f", elapsed(makeStart))) s), batches of \(options.batch), server \(address)")

let connection = try await PostgresConnection.connect(
    configuration: .init(host: address.host, port: address.port, username: address.user, password: address.resolvedPassword(),
                         database: address.database, tls: .disable),
    id: 1, logger: Logger(label: "sync-bench"))
let logger = Logger(label: "sync-bench")
let ids = rows.map(\.identifier)
let kinds = rows.map(\.kind)
let revisions = rows.map(\.revision)
let bodies = rows.map { $0.body.canonicalText }

func rawPush(_ table: String) async throws -> Double {
    try await connection.query("CREATE TABLE \(unescaped: table) (id text COLLATE \"C\" PRIMARY KEY, kind text NOT NULL, revision text NOT NULL, body text NOT NULL, sequence bigint NOT NULL)", logger: logger)
    // The same index DocumentSync's feed has, so the keyset-paged pull below reads by index too.
    try await connection.query("CREATE INDEX ON \(unescaped: table)(sequence)", logger: logger)
    let start = ContinuousClock.now
    for first in stride(from: 0, to: ids.count, by: options.batch) {
        let range = first..<min(first + options.batch, ids.count)
        let sequences = range.map { Int64($0) }
        try await connection.query("BEGIN", logger: logger)
        try await connection.query("""
            INSERT INTO \(unescaped: table)(id, kind, revision, body, sequence)
            SELECT * FROM unnest(\(Array(ids[range]))::text[], \(Array(kinds[range]))::text[], \(Array(revisions[range]))::text[],
                                 \(Array(bodies[range]))::text[], \(sequences)::int8[])
            """, logger: logger)
        try await connection.query("COMMIT", logger: logger)
    }
    return elapsed(start)
}

func rawPull(_ table: String) async throws -> Double {
    let start = ContinuousClock.now
    var after: Int64 = -1
    var count = 0
    while true {
        var last: Int64?
        for try await (sequence, id, kind, revision, body) in try await connection.query("""
            SELECT sequence, id, kind, revision, body FROM \(unescaped: table) WHERE sequence > \(after) ORDER BY sequence LIMIT \(Int64(options.batch))
            """, logger: logger).decode((Int64, String, String, String, String).self) {
            last = sequence
            count += id.utf8.count > 0 && !kind.isEmpty && !revision.isEmpty && !body.isEmpty ? 1 : 0
        }
        guard let last else { break }
        after = last
    }
    precondition(count == ids.count, "the raw pull read \(count) rows")
    try await connection.query("DROP TABLE \(unescaped: table)", logger: logger)
    return elapsed(start)
}

var ours = (push: [Double](), pull: [Double]())
var raw = (push: [Double](), pull: [Double]())
for run in 1...options.runs {
    let schema = "bench_\(getpid())_\(run)"
    var configuration = DocumentSync.Configuration(address: address, schema: schema)
    configuration.batchSize = options.batch
    // Ours, push: the source store to an empty schema (created before the clock starts).
    let pusher = try DocumentSync(persistence: source, configuration: configuration)
    let emptyStore = try Persistence(configuration: PersistenceConfiguration(url: folder.appendingPathComponent("empty-\(run).sqlite")))
    try await DocumentSync(persistence: emptyStore, configuration: configuration).push()
    var start = ContinuousClock.now
    let pushed = try await pusher.push()
    ours.push.append(elapsed(start))
    precondition(pushed.pushedRevisions == rows.count, "pushed \(pushed)")
    // Ours, pull: into a new store.
    let target = try Persistence(configuration: PersistenceConfiguration(url: folder.appendingPathComponent("target-\(run).sqlite")))
    target.register(persistableKind: Doc.self)
    let puller = try DocumentSync(persistence: target, configuration: configuration)
    start = ContinuousClock.now
    let pulled = try await puller.pull()
    ours.pull.append(elapsed(start))
    precondition(pulled.pulledRevisions == rows.count, "pulled \(pulled)")
    // Raw, the same rows.
    raw.push.append(try await rawPush("raw_\(getpid())_\(run)"))
    raw.pull.append(try await rawPull("raw_\(getpid())_\(run)"))
    let dropped: PostgresRowSequence = try await connection.query("DROP SCHEMA \(unescaped: "\"\(schema)\"") CASCADE", logger: logger)
    for try await _ in dropped {}
    print(String(format: "run %d: push %.2f s (raw %.2f s), pull %.2f s (raw %.2f s)", run, ours.push.last!, raw.push.last!,
                 ours.pull.last!, raw.pull.last!))
}
try await connection.closeGracefully()

func line(_ name: String, _ mine: [Double], _ peer: [Double]) {
    let (m, p) = (median(mine), median(peer))
    let docs = Double(rows.count)
    print(String(format: "%@: DocumentSync %.0f docs/s, raw postgres-nio %.0f docs/s: %.0f%% of raw (medians of %d runs)",
                 name, docs / m, docs / p, 100 * p / m, mine.count))
}
line("push", ours.push, raw.push)
line("pull", ours.pull, raw.pull)
