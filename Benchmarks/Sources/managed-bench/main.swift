// managed-bench: ManagedStorage against raw SQLite prepared statements, the same rows in one process.
//
//   managed-bench [--rows N] [--runs N] [--folder PATH]
//
// 1. N inserts in one performAndSave, against one BEGIN IMMEDIATE … COMMIT of a prepared INSERT.
// 2. Fetching N objects (and reading every attribute), against stepping a SELECT into structs.
// 3. A read on viewStorage while a long write runs: how long the read took, and whether the write was
//    still running when it returned (the read must not wait for the write).
// 4. A ResultsController over N rows in sections: one row changed in this process, time to the
//    callbacks; one row changed by another connection (the path another process's commit takes);
//    the memory the controller holds per row.
// 5. Migrating a store of N rows (one attribute added with a default, one renamed) as its open does,
//    against the same two ALTER TABLEs by hand, three times (MigrationBench.swift).
import BenchSupport
import Foundation
import HeapUsage
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
let (readSeconds, count, stillWriting) = { () -> (Double, Int, Bool) in
    var count = 0
    let elapsed = time { count = fetchManager.viewStorage.countObjects(ofType: BenchOrder.self) }
    return (elapsed, count, writing.load(ordering: .sequentiallyConsistent))
}()
finished.wait()
let writeSeconds = seconds(clock.now - writeStart)
print(String(format: "read on viewStorage during a %.2f s write of %d rows: %.2f ms, saw %d rows (the last commit), write %@ when the read returned",
             writeSeconds, longRows.count, readSeconds * 1000, count, stillWriting ? "still running" : "ALREADY DONE: the read waited"))

// 4. Live results.
await liveResults()

// 5. Migration.
await migrationBench()

@MainActor func liveResults() async {
    do {
        var configuration = StorageConfiguration(name: "Live", folder: try freshFolder())
        configuration.otherProcessPollInterval = .milliseconds(10)
        let manager = try SQLiteStorageManager(model: model, configuration: configuration)
        try insertOurs(manager, rows)
        let before = heap_bytes_in_use()
        var controller: ResultsController<BenchOrder>? = ResultsController<BenchOrder>(
            viewStorage: manager.viewStorage, sectionNameKeyPath: "status", sortedBy: [SortDescriptor(\.total), SortDescriptor(\.orderID)])
        let fetchSeconds = try time { try controller!.performFetch() }
        let perRow = Double(Int(heap_bytes_in_use()) - Int(before)) / Double(options.rows)
        print(String(format: "ResultsController over %d rows in %d sections: performFetch %.0f ms, %.0f bytes held per row",
                     options.rows, controller!.sections.count, fetchSeconds * 1000, perRow))

        var done: ContinuousClock.Instant?
        var changed = 0
        controller!.onDidChangeObject = { _, _, _, _ in changed += 1 }
        controller!.onDidChangeContent = { done = clock.now }
        func waitForCallbacks() async -> ContinuousClock.Instant {
            while done == nil { await Task.yield() }
            defer { done = nil }
            return done!
        }
        var local: [Double] = [], writeAlone: [Double] = [], other: [Double] = []
        let raw = try RawSQLite(path: manager.fileURL.path)
        for run in 0..<max(options.runs, 5) {
            let id = Int64(run * 7919 % options.rows)
            let total = Double(run) + 0.5
            // A write of the same shape with nobody listening: what the write itself costs.
            let idle = try time {
                try manager.writeAndWait { storage in
                    storage.firstObject(ofType: BenchOrder.self, matching: #Predicate { $0.orderID == id + 1 })?.note = "n\(run)"
                }
            }
            _ = await waitForCallbacks()
            writeAlone.append(idle)
            let start = clock.now
            _ = try await manager.write { storage in
                storage.firstObject(ofType: BenchOrder.self, matching: #Predicate { $0.orderID == id })?.total = total
            }
            local.append(seconds(await waitForCallbacks() - start))

            try raw.exec("UPDATE \"BenchOrder\" SET total = total + 1 WHERE orderID = \(id + 2)")
            let committed = clock.now
            other.append(seconds(await waitForCallbacks() - committed))
        }
        print(String(format: "  one row changed in this process: %.2f ms from the start of the write to the callbacks (the same write alone: %.2f ms; goal: under 5 ms)",
                     median(local) * 1000, median(writeAlone) * 1000))
        print(String(format: "  one row changed by another connection: %.1f ms from its commit to the callbacks (polling every 10 ms, then a refetch of %d rows compared with the rows held)",
                     median(other) * 1000, options.rows))
        controller = nil
        _ = changed
    } catch {
        print("live results: \(error)")
    }
}
