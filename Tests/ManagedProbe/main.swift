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
//     migrate FOLDER [once]     prints "ready migrating", opens the ledger store of FOLDER with
//                               `ledgerModelV2` (migrating a version-1 store), prints "migrated MS",
//                               then waits to be killed (the test kills it at random moments), or
//                               with `once` exits
//
// `ProbeOptions` (TestSupport) come first: `--start-after GATE`, `--file-size-limit BYTES`.
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
guard arguments.count >= 2 else { usage("increment|write-loop|check-reads|open|insert FOLDER ...") }
let command = arguments[0]
let folder = URL(fileURLWithPath: arguments[1])
var configuration = StorageConfiguration(name: "Store", folder: folder)
configuration.busyTimeout = .seconds(60)
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
        say("acked orders \(current)")   // performAndSave completed: durable at `.full` (PowerCutTests)
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

default:
    usage("unknown command \(command)")
}
