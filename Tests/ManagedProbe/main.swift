// managed-probe: a child process for ManagedStorage's contention, crash and fault tests.
//
// Every command opens the store `Store.sqlite` in FOLDER (the test's own folder, never one from the
// environment), prints its result on stdout and exits 0; `write-loop` without a count never ends (the
// test kills it). A `StorageError` prints `error: <case> <description>` on stderr and exits 1.
//
//     increment FOLDER N        N × performAndSave { counter "c" += 1 }; prints "values v1 v2 ..."
//     write-loop FOLDER [N]     transactions forever (or N): each inserts order S with 5 items and sets
//                               counter "tx" to S; prints "ready S" after the first commit and
//                               "committed S" after each
//     check-reads FOLDER N      N reads on viewStorage of a store another process writes: each read
//                               must see whole transactions (5 items per order, counter == orders);
//                               prints "reads N torn T"
//                               and "acked orders S" (PowerCutTests)
//     power-check FOLDER        opens the store, requires whole transactions (5 items per order, counter
//                               "tx" == orders == the highest id); prints "value orders N"
//     open FOLDER               opens the store; prints "orders N"
//     insert FOLDER ID BYTES    inserts one order whose note has BYTES characters; prints "inserted ID"
//     mutate FOLDER             three operations another manager follows: 3 orders inserted (2 items and
//                               a note each), then one order and one item updated, then one order
//                               deleted (its items cascade, its note's order is set to nothing); prints
//                               "inserted IDS", "updated IDS", "deleted IDS" and "nullified IDS" (object
//                               ids as `Entity/row`, space-separated) as each commits
//     churn FOLDER SEED N       N random operations from SEED (orders with items and notes inserted,
//                               updated, moved between statuses, deleted); prints "churned N"
//     migrate FOLDER [once]     prints "ready migrating", opens the ledger store of FOLDER with
//                               `ledgerModelV2` (migrating a version-1 store), prints "migrated MS",
//                               then waits to be killed (the test kills it at random moments), or
//                               with `once` exits
//     ledger-write-loop FOLDER  opens the ledger store with `ledgerModelV1` and inserts entries with codes
//                               1000001, 1000002, … one transaction each, printing "acked ledger N" after
//                               the Nth committed; at the first error prints it (`error: <case> …`) and exits 1
//     ledger-migrate-loop FOLDER  (PowerCutTests) without a store, creates one with `ledgerModelV1` and 500
//                               entries; then opens it with `ledgerModelV2` (migrating it) and inserts entries
//                               one per transaction for ever; prints "acked entries N" (N entries in all)
//                               after the fill and after each commit
//     ledger-open-moving-aside FOLDER  opens the ledger store with `ledgerModelV1` and `.moveAsideAndStartEmpty`
//                               (a version-2 store is moved aside); prints "opened entries N moved PATH|none"
//     ledger-check FOLDER       opens the ledger store with `ledgerModelV2` (migrating a version-1 store) and
//                               requires codes 0..<N without a gap; prints "value entries N"
//
// `ProbeOptions` (TestSupport) come first: `--start-after GATE`, `--file-size-limit BYTES`,
// `--durability normal|full`.
import Foundation
import ManagedStorage
import ManagedTestModel
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

func usage(_ message: String) -> Never { ProbeOutput.usage("managed-probe", message) }
func fail(_ error: any Error) -> Never { ProbeOutput.fail(error, as: StorageError.self) }
func say(_ line: String) { ProbeOutput.say(line) }

/// Waits for a `performAndSave` completion (the probe has no run loop to return to).
func performAndWait<T: Sendable>(_ manager: SQLiteStorageManager,
                                 _ operation: @escaping @Sendable (StorageType) throws -> T) -> Result<T, Error> {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var outcome: Result<T, Error>?
    manager.performAndSave(operation, completion: { result in
        outcome = result
        done.signal()
    }, on: DispatchQueue.global())
    done.wait()
    return outcome!
}

var arguments = Array(CommandLine.arguments.dropFirst())
let options = ProbeOptions.parse(&arguments)
options.applyLimits()
guard arguments.count >= 2 else { usage("increment|write-loop|check-reads|open|insert|mutate|churn FOLDER ...") }
let command = arguments[0]
let folder = URL(fileURLWithPath: arguments[1])
var configuration = StorageConfiguration(name: "Store", folder: folder)
configuration.busyTimeout = .seconds(60)
if options.normalDurability { configuration.durability = .normal }
configuration.onError = { error in FileHandle.standardError.write(Data("reported: \(error)\n".utf8)) }
if command == "migrate" {
    options.waitForGate()
    say("ready migrating")
    let started = ContinuousClock.now
    do {
        _ = try SQLiteStorageManager(model: ledgerModelV2, configuration: configuration)
    } catch {
        fail(error)
    }
    let elapsed = ContinuousClock.now - started
    say("migrated \(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)")
    if arguments.count > 2 && arguments[2] == "once" { exit(0) }
    while true { sleep(60) }
}
if command.hasPrefix("ledger-") {
    runLedgerCommand(command, folder: folder, configuration: configuration)
}
let manager: SQLiteStorageManager
do {
    manager = try SQLiteStorageManager(model: testModel, configuration: configuration)
} catch {
    fail(error)
}
options.waitForGate()

switch command {
case "increment":
    guard arguments.count == 3, let n = Int(arguments[2]) else { usage("increment FOLDER N") }
    var values: [Int64] = []
    for _ in 0..<n {
        let result = performAndWait(manager) { storage -> Int64 in
            let counter = storage.firstObject(ofType: Counter.self, matching: #Predicate { $0.name == "c" })
                ?? storage.insertNewObject(ofType: Counter.self)
            counter.name = "c"
            counter.value += 1
            return counter.value
        }
        switch result {
        case .success(let value): values.append(value)
        case .failure(let error): fail(error)
        }
    }
    say("values " + values.map(String.init).joined(separator: " "))

case "write-loop":
    let limit = arguments.count > 2 ? Int(arguments[2]) : nil
    let start = (try? manager.writeAndWait { $0.countObjects(ofType: Order.self) }) ?? 0
    var sequence = Int64(start)
    var announced = false
    while limit.map({ sequence < Int64(start + $0) }) ?? true {
        sequence += 1
        let current = sequence
        let result = performAndWait(manager) { storage in
            let order = storage.insertNewObject(ofType: Order.self)
            order.orderID = current
            order.status = "processing"
            order.customerNote = String(repeating: "n", count: 300)
            for n in 0..<5 {
                let item = storage.insertNewObject(ofType: OrderItem.self)
                item.itemID = current * 10 + Int64(n)
                item.name = "item \(n)"
                item.order = order
            }
            let counter = storage.firstObject(ofType: Counter.self, matching: #Predicate { $0.name == "tx" })
                ?? storage.insertNewObject(ofType: Counter.self)
            counter.name = "tx"
            counter.value = current
        }
        if case .failure(let error) = result { fail(error) }
        if !announced {
            say("ready \(current)")
            announced = true
        }
        say("committed \(current)")
        say("acked orders \(current)")   // performAndSave completed: durable at `.full` (PowerCutTests; at `.normal` the measure of what a cut loses)
    }

case "check-reads":
    guard arguments.count == 3, let n = Int(arguments[2]) else { usage("check-reads FOLDER N") }
    var torn = 0
    for _ in 0..<n {
        // One snapshot for the whole check: the orders, their items and the counter, read together.
        let whole = (try? manager.read { storage -> Bool in
            let orders = storage.countObjects(ofType: Order.self)
            let items = storage.countObjects(ofType: OrderItem.self)
            let counter = storage.firstObject(ofType: Counter.self, matching: #Predicate { $0.name == "tx" })?.value ?? 0
            return items == orders * 5 && counter == Int64(orders)
        }) ?? false
        if !whole { torn += 1 }
    }
    say("reads \(n) torn \(torn)")

case "power-check":
    let result = Result { try manager.read { storage -> (Int, Int, Int64, Int64) in
        let orders = storage.countObjects(ofType: Order.self)
        let items = storage.countObjects(ofType: OrderItem.self)
        let counter = storage.firstObject(ofType: Counter.self, matching: #Predicate { $0.name == "tx" })?.value ?? 0
        let highest = storage.allObjects(ofType: Order.self, matching: nil, sortedBy: nil).map(\.orderID).max() ?? 0
        return (orders, items, counter, highest)
    } }
    switch result {
    case .failure(let error): fail(error)
    case .success(let (orders, items, counter, highest)):
        guard items == orders * 5, counter == Int64(orders), highest == Int64(orders) else {
            FileHandle.standardError.write(Data("error: torn orders \(orders) items \(items) counter \(counter) highest id \(highest)\n".utf8))
            exit(1)
        }
        say("value orders \(orders)")
    }

case "open":
    let count = try? manager.writeAndWait { $0.countObjects(ofType: Order.self) }
    say("orders \(count ?? -1)")

case "insert":
    guard arguments.count == 4, let id = Int64(arguments[2]), let bytes = Int(arguments[3]) else { usage("insert FOLDER ID BYTES") }
    let result = performAndWait(manager) { storage in
        let order = storage.insertNewObject(ofType: Order.self)
        order.orderID = id
        order.customerNote = String(repeating: "x", count: bytes)
    }
    if case .failure(let error) = result { fail(error) }
    say("inserted \(id)")

case "mutate":
    func ids(_ objects: [StorageObjectID]) -> String { objects.map(\.description).sorted().joined(separator: " ") }
    let inserted = performAndWait(manager) { storage -> [StorageObjectID] in
        var objects: [any StorageEntity] = []
        for n in 0..<3 {
            let order = insertOrder(storage, id: 100 + Int64(n), status: "pending", total: Double(n), items: 2)
            let note = storage.insertNewObject(ofType: OrderNote.self)
            note.text = "note \(n)"
            note.order = order
            objects.append(order)
            objects.append(note)
            objects.append(contentsOf: order.items.map { $0 as any StorageEntity })
        }
        storage.saveIfNeeded()
        return objects.map(\.objectID)
    }
    guard case .success(let created) = inserted else { if case .failure(let error) = inserted { fail(error) }; exit(1) }
    say("inserted \(ids(created))")
    let updated = performAndWait(manager) { storage -> [StorageObjectID] in
        guard let order = storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == 100 }),
              let item = storage.firstObject(ofType: OrderItem.self, matching: #Predicate { $0.itemID == 10100 }) else { return [] }
        order.status = "completed"
        order.total += 5
        item.quantity = 9
        return [order.objectID, item.objectID]
    }
    guard case .success(let changed) = updated else { if case .failure(let error) = updated { fail(error) }; exit(1) }
    say("updated \(ids(changed))")
    let deleted = performAndWait(manager) { storage -> ([StorageObjectID], [StorageObjectID]) in
        guard let order = storage.firstObject(ofType: Order.self, matching: #Predicate { $0.orderID == 101 }) else { return ([], []) }
        let gone = [order.objectID] + order.items.map(\.objectID)
        let notes = order.notes.map(\.objectID)
        storage.deleteObject(order)
        return (gone, notes)
    }
    guard case .success(let (gone, nullified)) = deleted else { if case .failure(let error) = deleted { fail(error) }; exit(1) }
    say("deleted \(ids(gone))")
    say("nullified \(ids(nullified))")

case "churn":
    guard arguments.count == 4, let seed = UInt64(arguments[2]), let n = Int(arguments[3]) else { usage("churn FOLDER SEED N") }
    var rng = SeededGenerator(seed: seed)
    let statuses = ["pending", "processing", "completed"]
    for step in 0..<n {
        let roll = Int.random(in: 0..<10, using: &rng)
        let pick = UInt64.random(in: 0..<UInt64.max, using: &rng)
        let status = statuses[Int(pick % 3)]
        let result = performAndWait(manager) { storage in
            let orders = storage.allObjects(ofType: Order.self)
            if orders.isEmpty || roll < 4 {
                let order = insertOrder(storage, id: Int64(seed % 1000) * 100_000 + Int64(step), status: status,
                                        total: Double(pick % 100), items: Int(pick % 3))
                let note = storage.insertNewObject(ofType: OrderNote.self)
                note.text = "churn \(step)"
                note.order = order
            } else if roll < 8 {
                for offset in 0..<Int(pick % 3 + 1) {
                    let order = orders[Int((pick / 7 + UInt64(offset) * 31) % UInt64(orders.count))]
                    order.status = status
                    order.total += 1
                }
            } else {
                storage.deleteObject(orders[Int(pick / 11 % UInt64(orders.count))])
            }
        }
        if case .failure(let error) = result { fail(error) }
    }
    say("churned \(n)")

default:
    usage("unknown command \(command)")
}

/// The ledger commands, on `ledgerModelV1`/`ledgerModelV2` (ManagedTestModel's LedgerVersions).
func runLedgerCommand(_ command: String, folder: URL, configuration: StorageConfiguration) -> Never {
    switch command {
    case "ledger-write-loop":
        let manager: SQLiteStorageManager
        do { manager = try SQLiteStorageManager(model: ledgerModelV1, configuration: configuration) } catch { fail(error) }
        var n: Int64 = 0
        while true {
            n += 1
            let code = 1_000_000 + n
            do {
                try manager.writeAndWait { storage in
                    let entry = storage.insertNewObject(ofType: EntryV1.self)
                    entry.code = code
                    entry.title = "written by another process"
                }
            } catch {
                fail(error)
            }
            say("acked ledger \(n)")
        }
    case "ledger-migrate-loop":
        do {
            if !FileManager.default.fileExists(atPath: configuration.fileURL.path) {
                try fillLedgerV1(try SQLiteStorageManager(model: ledgerModelV1, configuration: configuration), entries: 500)
                say("acked entries 500")
            }
            let manager = try SQLiteStorageManager(model: ledgerModelV2, configuration: configuration)
            var count = try manager.writeAndWait { $0.countObjects(ofType: EntryV2.self) }
            while true {
                let code = Int64(count)
                try manager.writeAndWait { storage in
                    let entry = storage.insertNewObject(ofType: EntryV2.self)
                    entry.code = code
                    entry.label = "entry \(code)"
                }
                count += 1
                say("acked entries \(count)")
            }
        } catch {
            fail(error)
        }
    case "ledger-open-moving-aside":
        var aside = configuration
        aside.incompatibleStore = .moveAsideAndStartEmpty
        do {
            let manager = try SQLiteStorageManager(model: ledgerModelV1, configuration: aside)
            let count = try manager.read { $0.countObjects(ofType: EntryV1.self) }
            let moved: String
            if case .incompatibleStoreMovedAside(_, let movedTo, _)? = manager.movedAsideAtOpen { moved = movedTo } else { moved = "none" }
            say("opened entries \(count) moved \(moved)")
            exit(0)
        } catch {
            fail(error)
        }
    case "ledger-check":
        do {
            let manager = try SQLiteStorageManager(model: ledgerModelV2, configuration: configuration)
            let codes = try manager.read { storage in storage.allObjects(ofType: EntryV2.self).map(\.code) }
            let sorted = codes.sorted()
            guard sorted == Array(0..<Int64(sorted.count)) else {
                FileHandle.standardError.write(Data("error: the entries' codes are not 0..<\(sorted.count) (first \(sorted.prefix(3)), last \(sorted.suffix(3)))\n".utf8))
                exit(1)
            }
            say("value entries \(sorted.count)")
            exit(0)
        } catch {
            fail(error)
        }
    default:
        usage("unknown command \(command)")
    }
}
