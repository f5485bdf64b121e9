// document-bench: DocumentStore against raw SQLite (prepared statements through the C API, the same
// rows), in one process. See ../../README.md.
import BenchSupport
import DocumentStore
import Foundation
import GRDBSQLite

/// A small Dali-style document: a circle with a name and a flag.
final class BenchCircle: Persistable {
    static let kind = "Circle"
    var identifier: String
    let radius: Double
    let name: String
    let flag: Bool

    init(identifier: String, radius: Double, name: String, flag: Bool) {
        self.identifier = identifier
        self.radius = radius
        self.name = name
        self.flag = flag
    }

    init?(with json: JSON, from persistence: Persistence) throws {
        guard let radius: Double = "radius" <~~ json, let name: String = "name" <~~ json, let flag: Bool = "flag" <~~ json else { return nil }
        identifier = ""
        self.radius = radius
        self.name = name
        self.flag = flag
    }

    func save(to: Persistence) throws {
        try to.save(self, json: ["radius": radius, "name": name, "flag": flag])
    }
}

struct Options {
    var documents = 100_000
    var runs = 3
    var loads = 1_000_000
    var queries = 2_000
}

let usage = """
    usage: document-bench [--documents N] [--runs N] [--loads N] [--queries N]
      --documents N  documents saved in one transaction (100000)
      --runs N       measured runs of the save case (3)
      --loads N      identity-map hits measured (1000000); misses and raw selects use a tenth
      --queries N    indexed queries per side (2000)
    """
var options = Options()
if let error = parseOptions(Array(CommandLine.arguments.dropFirst()), usage: usage, numbers: [
    "--documents": (1000, { options.documents = $0 }), "--runs": (1, { options.runs = $0 }),
    "--loads": (1000, { options.loads = $0 }), "--queries": (10, { options.queries = $0 }),
]) {
    _ = optionsOrExit(Result<Options, OptionsError>.failure(error), usage: usage)
}
options = optionsOrExit(.success(options), usage: usage)

let seed: UInt64 = 0x444F_4342_454E_4348
print("document-bench: \(options.documents) documents, seed \(seed)")
var generator = SplitMix64(seed: seed)
let specs = (0..<options.documents).map { index in
    (id: String(format: "doc-%08d-%08x", index, UInt32(truncatingIfNeeded: generator.next())),
     radius: Double(generator.next() % 100_000) / 100, name: "circle \(generator.next() % 1000)", flag: generator.next() % 2 == 0)
}
func objects() -> [BenchCircle] {
    specs.map { BenchCircle(identifier: $0.id, radius: $0.radius, name: $0.name, flag: $0.flag) }
}
// The peer's rows, computed before its timed region: the same canonical JSON and revision ours writes.
let rows: [Row] = specs.map { spec in
    let body = JSON.object(["radius": .double(spec.radius), "name": .string(spec.name), "flag": .bool(spec.flag)]).canonicalText
    return Row(id: spec.id, kind: "Circle", revision: Revision.next(after: nil, canonicalBody: body, deleted: false), body: body)
}
print("the peer's rows (canonical JSON text and revision identifiers) are computed before its timed region")

let root = FileManager.default.temporaryDirectory.appendingPathComponent("document-bench-\(getpid())")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }
print("folder \(root.path) (\(fileSystemName(root)))")
let clock = ContinuousClock()

// MARK: 1. saves in one transaction

print("\n1. \(options.documents) new documents saved in one transaction (documents, revisions and changes rows)")
var oursSeconds: [Double] = []
var rawSeconds: [Double] = []
var lastOurs = root
var lastRaw = root
for run in 0..<(options.runs + 1) {
    let ours = root.appendingPathComponent("ours-\(run).sqlite")
    let raw = root.appendingPathComponent("raw-\(run).sqlite")
    let persistence = try Persistence(url: ours)
    let batch = objects()
    let oursTime = try clock.measure {
        try persistence.transaction { p in for object in batch { try p.save(object) } }
    }
    let peer = try RawDocuments(path: raw.path, create: true)
    let rawTime = try clock.measure { try peer.insert(rows) }
    if run > 0 {   // the first run warms up
        oursSeconds.append(seconds(oursTime))
        rawSeconds.append(seconds(rawTime))
    }
    lastOurs = ours
    lastRaw = raw
}
let oursRate = Double(options.documents) / median(oursSeconds)
let rawRate = Double(options.documents) / median(rawSeconds)
let check = try RawDocuments(path: lastOurs.path, create: false)
let peerCheck = try RawDocuments(path: lastRaw.path, create: false)
guard try check.dump() == peerCheck.dump(), try check.count("revisions") == peerCheck.count("revisions"),
      try check.count("changes") == peerCheck.count("changes") else {
    print("FAILED: the two files do not hold the same rows")
    exit(1)
}
print("   same rows in both files: \(try check.count("documents")) documents, \(try check.count("revisions")) revisions, \(try check.count("changes")) changes")
for line in alignedLines(header: ["side", "median s", "docs/s"], rows: [
    ["DocumentStore", String(format: "%.3f", median(oursSeconds)), String(format: "%.0f", oursRate)],
    ["raw SQLite", String(format: "%.3f", median(rawSeconds)), String(format: "%.0f", rawRate)],
]) { print("   " + line) }
print(String(format: "   ours/raw: %.0f%% of raw's docs/s (goal: at least 70%%)", 100 * oursRate / rawRate))

// MARK: 2. loads by identifier

print("\n2. loads by identifier")
let store = try Persistence(url: lastOurs)
let held: [BenchCircle] = try store.loadAll(kind: BenchCircle.self)
let picks = (0..<options.loads).map { _ in specs[Int(generator.next() % UInt64(specs.count))].id }
var found = 0
let hit = clock.measure {
    for id in picks { if let object: BenchCircle = try? store.load(id) { found &+= object.name.utf8.count } }
}
// The floor for a hit over this many objects: the same lookups in a bare Dictionary, no lock, no weak reference.
let bare = Dictionary(uniqueKeysWithValues: held.map { ($0.identifier, $0) })
let bareHit = clock.measure {
    for id in picks { if let object = bare[id] { found &+= object.name.utf8.count } }
}
// A hot working set: 1,000 held objects loaded over and over (what a screen of objects does).
let hotIDs = Array(Set(picks.prefix(5_000)).prefix(1_000))
let hotPicks = (0..<options.loads).map { _ in hotIDs[Int(generator.next() % UInt64(hotIDs.count))] }
let hotHit = clock.measure {
    for id in hotPicks { if let object: BenchCircle = try? store.load(id) { found &+= object.name.utf8.count } }
}
let bareHot = clock.measure {
    for id in hotPicks { if let object = bare[id] { found &+= object.name.utf8.count } }
}
let misses = options.loads / 10
let missStore = try Persistence(url: lastRaw)
let miss = clock.measure {
    for id in picks.prefix(misses) { if let object: BenchCircle = try? missStore.load(id) { found &+= object.name.utf8.count } }
}
let select = try peerCheck.prepare("SELECT kind, revision, deleted, body FROM documents WHERE id = ?")
let rawLoad = clock.measure {
    for id in picks.prefix(misses) { if let row = peerCheck.load(select, id) { found &+= row.3.utf8.count } }
}
sqlite3_finalize(select)
let hitNS = seconds(hit) * 1e9 / Double(options.loads)
let bareNS = seconds(bareHit) * 1e9 / Double(options.loads)
let hotNS = seconds(hotHit) * 1e9 / Double(options.loads)
let bareHotNS = seconds(bareHot) * 1e9 / Double(options.loads)
let missNS = seconds(miss) * 1e9 / Double(misses)
let rawNS = seconds(rawLoad) * 1e9 / Double(misses)
for line in alignedLines(header: ["case", "ns/load"], rows: [
    ["identity-map hit, 1,000 objects loaded over and over (\(options.loads) loads)", String(format: "%.0f", hotNS)],
    ["  the same lookups in a bare [String: AnyObject]", String(format: "%.0f", bareHotNS)],
    ["identity-map hit, random among \(held.count) held objects", String(format: "%.0f", hitNS)],
    ["  the same lookups in a bare [String: AnyObject]", String(format: "%.0f", bareNS)],
    ["miss: read, parse JSON, build the object (\(misses))", String(format: "%.0f", missNS)],
    ["raw SELECT by id, columns read (\(misses))", String(format: "%.0f", rawNS)],
]) { print("   " + line) }
print(String(format: "   hit: %.0f ns hot (goal: under 100 ns), %.0f ns over %d objects (%.2f× a bare dictionary's); miss/raw: %.2f×",
             hotNS, hitNS, held.count, hitNS / bareNS, missNS / rawNS))
withExtendedLifetime(held) {}

// MARK: 3. an indexed query

print("\n3. \(options.queries) indexed queries: radius > X sorted by radius, limit 100")
let index = try store.createIndex(kind: BenchCircle.self, fields: ["radius"])
let sql = """
    SELECT id, kind, revision, body FROM documents WHERE deleted = 0 AND kind = 'Circle' \
    AND json_extract(body, '$."radius"') > ? ORDER BY json_extract(body, '$."radius"'), id LIMIT 100 OFFSET 0
    """
try peerCheck.exec("CREATE INDEX IF NOT EXISTS raw_radius ON documents(kind, json_extract(body, '$.\"radius\"')) WHERE deleted = 0 AND kind = 'Circle'")
let thresholds = (0..<options.queries).map { _ in Double(generator.next() % 99_000) / 100 }
func query(_ x: Double) -> DocumentQuery<BenchCircle> {
    store.query(BenchCircle.self).where(Field("radius") > x).sorted(by: "radius").limit(100)
}
print("   ours: \(try query(1).explainQueryPlan().joined(separator: "; "))")
print("   raw:  \(try peerCheck.plan(sql).joined(separator: "; "))")
guard try query(1).explainQueryPlan().joined().contains(index) else { print("FAILED: our query does not use \(index)"); exit(1) }
let statement = try peerCheck.prepare(sql)
var oursIDs: [String] = []
var rawIDs: [String] = []
let snapshotsTime = try clock.measure { for x in thresholds { oursIDs = try query(x).snapshots().map(\.identifier) } }
let fetchTime = try clock.measure { for x in thresholds { found &+= try query(x).fetch().count } }
let rawQueryTime = clock.measure { for x in thresholds { rawIDs = peerCheck.query(statement, x) } }
sqlite3_finalize(statement)
guard oursIDs == rawIDs else { print("FAILED: the two sides returned different documents"); exit(1) }
let perQuery = { (duration: Duration) in seconds(duration) * 1e6 / Double(options.queries) }
for line in alignedLines(header: ["side", "µs/query"], rows: [
    ["DocumentStore snapshots() (JSON)", String(format: "%.1f", perQuery(snapshotsTime))],
    ["DocumentStore fetch() (objects, identity map)", String(format: "%.1f", perQuery(fetchTime))],
    ["raw SQLite (rows read as text)", String(format: "%.1f", perQuery(rawQueryTime))],
]) { print("   " + line) }
print(String(format: "   snapshots/raw: %.2f×, fetch/raw: %.2f×", perQuery(snapshotsTime) / perQuery(rawQueryTime),
             perQuery(fetchTime) / perQuery(rawQueryTime)))
print("\n(checksum \(found))")
