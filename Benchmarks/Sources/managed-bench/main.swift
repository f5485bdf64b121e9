// managed-bench: ManagedStorage against raw SQLite prepared statements, the same rows in one process.
//
//   managed-bench [--rows N] [--runs N] [--folder PATH]
//
// 1. N inserts in one performAndSave, against one BEGIN IMMEDIATE … COMMIT of a prepared INSERT.
// 2. Fetching N objects (and reading every attribute), against stepping a SELECT into structs.
// 3. A read on viewStorage while a long write runs: how long the read took, and whether the write was
//    still running when it returned (the read must not wait for the write).
import BenchSupport
import Foundation
import ManagedStorage
import Synchronization

@StorageEntity
final class BenchOrder {
    var orderID: Int64
    var status: String
    var total: Double
    var dateCreated: Date
    var note: String?
}

struct BenchRow: Sendable {
    var orderID: Int64
    var status: String
    var total: Double
    var dateCreated: Date
    var note: String?
}

struct Options {
    var rows = 100_000
    var runs = 5
    var folder: URL?
}

let usage = "usage: managed-bench [--rows N] [--runs N] [--folder PATH]"
var options = Options()
if let error = parseOptions(Array(CommandLine.arguments.dropFirst()), usage: usage,
                            numbers: ["--rows": (1000, { options.rows = $0 }), "--runs": (1, { options.runs = $0 })],
                            folder: { options.folder = $0 }) {
    print(error.message)
    exit(error.message == usage ? 0 : 2)
}
#if DEBUG
print("warning: a debug build; build with -c release for figures that mean anything")
#endif

let model = StorageModel(entities: [BenchOrder.self])
let statuses = ["pending", "processing", "on-hold", "completed", "cancelled"]
func makeRow(_ i: Int) -> BenchRow {
    let status: String = statuses[i % statuses.count]
    let total: Double = Double(i % 10_000) / 100
    let date = Date(timeIntervalSince1970: 1_767_225_600 + Double(i))
    let note: String? = i % 3 == 0 ? "note \(i)" : nil
    return BenchRow(orderID: Int64(i), status: status, total: total, dateCreated: date, note: note)
}
let rows: [BenchRow] = (0..<options.rows).map(makeRow)
let root = (options.folder ?? FileManager.default.temporaryDirectory).appendingPathComponent("managed-bench-\(getpid())")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }
print("managed-bench: \(options.rows) rows, median of \(options.runs) runs, files in \(root.path)")

/// A fresh folder for one run of one side.
var runNumber = 0
@MainActor func freshFolder() throws -> URL {
    runNumber += 1
    let folder = root.appendingPathComponent("run-\(runNumber)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

func insertOurs(_ manager: SQLiteStorageManager, _ rows: [BenchRow]) throws {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var outcome: Result<Void, Error> = .success(())
    manager.performAndSave({ storage in
        for row in rows {
            let order = storage.insertNewObject(ofType: BenchOrder.self)
            order.orderID = row.orderID
            order.status = row.status
            order.total = row.total
            order.dateCreated = row.dateCreated
            order.note = row.note
        }
    }, completion: { (result: Result<Void, Error>) in
        outcome = result
        done.signal()
    }, on: .global())
    done.wait()
    try outcome.get()
}

let clock = ContinuousClock()
func time(_ body: () throws -> Void) rethrows -> Double {
    seconds(try clock.measure(body))
}

// 1. Inserts.
var oursInsert: [Double] = []
var rawInsert: [Double] = []
for _ in 0..<options.runs {
    let ours = try SQLiteStorageManager(model: model, configuration: StorageConfiguration(name: "Bench", folder: try freshFolder()))
    oursInsert.append(try time { try insertOurs(ours, rows) })
    let raw = try RawSQLite(path: try freshFolder().appendingPathComponent("Bench.sqlite").path)
    rawInsert.append(try time { try raw.insert(rows) })
}
@MainActor func report(_ name: String, ours: [Double], raw: [Double]) {
    let o = median(ours), r = median(raw)
    let n = Double(options.rows)
    print(String(format: "%@: ManagedStorage %.0f rows/s (%.3f s), raw SQLite %.0f rows/s (%.3f s); ManagedStorage at %.0f%% of raw, %.0f ns more per row",
                 name, n / o, o, n / r, r, 100 * r / o, (o - r) / n * 1e9))
}
report("insert \(options.rows) in one performAndSave", ours: oursInsert, raw: rawInsert)

// 2. Fetching.
let fetchFolder = try freshFolder()
let fetchManager = try SQLiteStorageManager(model: model, configuration: StorageConfiguration(name: "Bench", folder: fetchFolder))
try insertOurs(fetchManager, rows)
let rawFetch = try RawSQLite(path: fetchFolder.appendingPathComponent("Bench.sqlite").path)
var oursFetch: [Double] = []
var rawFetchTimes: [Double] = []
var checksum = 0.0
for _ in 0..<options.runs {
    oursFetch.append(try time {
        try fetchManager.read { storage in
            for order in storage.allObjects(ofType: BenchOrder.self) {
                checksum += order.total + Double(order.orderID) + Double(order.status.utf8.count) + Double(order.note?.utf8.count ?? 0)
                    + order.dateCreated.timeIntervalSince1970
            }
        }
    })
    rawFetchTimes.append(try time {
        for row in try rawFetch.fetchAll() {
            checksum -= row.total + Double(row.orderID) + Double(row.status.utf8.count) + Double(row.note?.utf8.count ?? 0)
                + row.dateCreated.timeIntervalSince1970
        }
    })
}
report("fetch \(options.rows) objects", ours: oursFetch, raw: rawFetchTimes)
print(String(format: "  (checksum %.1f: both sides read the same values when it is 0)", checksum))

// 3. A read on viewStorage while a long write runs.
let started = DispatchSemaphore(value: 0)
let finished = DispatchSemaphore(value: 0)
let writing = Atomic<Bool>(false)
let longRows = rows + rows + rows
let writeStart = clock.now
fetchManager.performAndSave({ storage in
    writing.store(true, ordering: .sequentiallyConsistent)
    for (n, row) in longRows.enumerated() {
        let order = storage.insertNewObject(ofType: BenchOrder.self)
        order.orderID = row.orderID + 1_000_000
        order.status = row.status
        if n == 1000 { started.signal() }
    }
    storage.saveIfNeeded()
}, completion: {
    writing.store(false, ordering: .sequentiallyConsistent)
    finished.signal()
}, on: .global())
started.wait()
let (readSeconds, count, stillWriting) = MainActor.assumeIsolated { () -> (Double, Int, Bool) in
    var count = 0
    let elapsed = time { count = fetchManager.viewStorage.countObjects(ofType: BenchOrder.self) }
    return (elapsed, count, writing.load(ordering: .sequentiallyConsistent))
}
finished.wait()
let writeSeconds = seconds(clock.now - writeStart)
print(String(format: "read on viewStorage during a %.2f s write of %d rows: %.2f ms, saw %d rows (the last commit), write %@ when the read returned",
             writeSeconds, longRows.count, readSeconds * 1000, count, stillWriting ? "still running" : "ALREADY DONE: the read waited"))
