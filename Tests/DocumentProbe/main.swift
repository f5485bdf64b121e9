// document-probe: a child process for DocumentStore's contention, crash and fault tests.
//
// Every command opens the store `Store.sqlite` in FOLDER (the test's own folder, never one from the
// environment), prints its result on stdout and exits 0; `write-loop` never ends (the test kills it).
// A `DocumentStoreError` prints `error: <case> <description>` on stderr and exits 1.
//
//     increment FOLDER N        N × (load counter "c", add 1, save; on a conflict refresh and retry);
//                               prints "values v1 v2 ..." (the values it saved) and "conflicts C"
//     write-loop FOLDER         transactions forever: each saves a Venn diagram and its two circles
//                               (ids venn-K, left-K, right-K); prints "ready K" after the first commit
//                               and "committed K REVISION" after each
//                               and "acked venn K" (PowerCutTests)
//     power-check FOLDER        requires venn-1...venn-N and their circles; prints "value venn N"
//     save-then-delete FOLDER N VALUE
//                               saves N Venn diagrams, then deleteDatabase(); prints "acked deleted
//                               VALUE" once it returned, then waits to be killed (PowerCutTests)
//     open FOLDER               opens the store; prints "documents N"
//     save FOLDER ID BYTES      saves one Item whose body holds BYTES characters; prints "saved ID"
//     watch FOLDER              prints "ready", then each time the Counter results change "counters N"
//
// `ProbeOptions` (TestSupport) come first: `--start-after GATE`, `--file-size-limit BYTES`,
// `--durability normal|full`.
import DocumentStore
import DocumentTestModel
import Foundation
import TestSupport

func usage(_ message: String) -> Never { ProbeOutput.usage("document-probe", message) }
func fail(_ error: any Error) -> Never { ProbeOutput.fail(error, as: DocumentStoreError.self) }
func say(_ line: String) { ProbeOutput.say(line) }

var arguments = Array(CommandLine.arguments.dropFirst())
let options = ProbeOptions.parse(&arguments)
options.applyLimits()
guard arguments.count >= 2 else { usage("increment|write-loop|open|save|watch FOLDER ...") }
let command = arguments[0]
let folder = URL(fileURLWithPath: arguments[1])

do {
    var configuration = PersistenceConfiguration(url: folder.appendingPathComponent("Store.sqlite"))
    // Four processes on two loaded cores: a holder of the write lock can be off the CPU for seconds.
    configuration.busyTimeout = .seconds(120)
    if options.normalDurability { configuration.durability = .normal }
    let persistence = try Persistence(configuration: configuration)
    persistence.register(persistableKind: Circle.self)
    switch command {
    case "increment":
        guard arguments.count == 3, let count = Int(arguments[2]) else { usage("increment FOLDER N") }
        options.waitForGate()
        var values: [Int] = []
        var conflicts = 0
        var counter: Counter? = try persistence.load("c")
        while values.count < count {
            do {
                if let current = counter {
                    current.value += 1
                    try persistence.save(current)
                    values.append(current.value)
                } else {
                    let created = Counter(identifier: "c", value: 1)
                    try persistence.save(created)
                    counter = created
                    values.append(1)
                }
            } catch DocumentStoreError.conflict {
                conflicts += 1
                if let current = counter {
                    current.value -= 1   // undo the local change; the refreshed instance replaces it
                    counter = try persistence.refresh(current)
                } else {
                    counter = try persistence.load("c")
                }
            }
        }
        say("values " + values.map(String.init).joined(separator: " "))
        say("conflicts \(conflicts)")
    case "write-loop":
        var next = try persistence.query(VennDiagram.self).count() + 1
        var first = true
        while true {
            let left = Circle(radius: Double(next))
            left.identifier = "left-\(next)"
            let right = Circle(radius: Double(next) + 0.5)
            right.identifier = "right-\(next)"
            let venn = VennDiagram(left: left, right: right)
            venn.identifier = "venn-\(next)"
            try persistence.save(venn)
            if first {
                say("ready \(next)")
                first = false
            }
            say("committed \(next) \(persistence.revision(of: venn) ?? "?")")
            say("acked venn \(next)")   // save returned: durable at `.full` (PowerCutTests)
            next += 1
        }
    case "save-then-delete":
        guard arguments.count == 4, let count = Int(arguments[2]), let value = Int(arguments[3]) else {
            usage("save-then-delete FOLDER N VALUE")
        }
        for k in 1...max(1, count) {
            let left = Circle(radius: Double(k))
            left.identifier = "left-\(k)"
            let right = Circle(radius: Double(k) + 0.5)
            right.identifier = "right-\(k)"
            let venn = VennDiagram(left: left, right: right)
            venn.identifier = "venn-\(k)"
            try persistence.save(venn)
        }
        try persistence.deleteDatabase()
        say("acked deleted \(value)")   // deleteDatabase returned: the deletion is durable
        while true { pause() }
    case "power-check":
        let count = try persistence.query(VennDiagram.self).count()
        for k in stride(from: 1, through: count, by: 1) {
            let venn: VennDiagram? = try persistence.load("venn-\(k)")
            let left: Circle? = try persistence.load("left-\(k)")
            let right: Circle? = try persistence.load("right-\(k)")
            guard venn != nil, left != nil, right != nil else { usage("power-check: \(count) diagrams, but venn-\(k) or its circles are missing") }
        }
        say("value venn \(count)")
    case "open":
        say("documents \(try persistence.query(Item.self).count() + persistence.query(Shape.self).count() + persistence.query(VennDiagram.self).count())")
    case "save":
        guard arguments.count == 4, let bytes = Int(arguments[3]) else { usage("save FOLDER ID BYTES") }
        try persistence.save(Item(identifier: arguments[2], body: ["text": .string(String(repeating: "x", count: bytes))]))
        say("saved \(arguments[2])")
    case "watch":
        let done = DispatchSemaphore(value: 0)
        // Detached: the main actor is blocked in `wait()` below.
        Task.detached {
            var first = true
            do {
                for try await results in persistence.query(Counter.self).observe() {
                    if first { say("ready"); first = false }
                    say("counters \(results.count) " + results.map { "\($0.identifier)=\($0.body["value"]?.description ?? "?")" }.joined(separator: " "))
                }
            } catch {
                fail(error)
            }
            done.signal()
        }
        done.wait()
    default:
        usage("unknown command \(command)")
    }
} catch {
    fail(error)
}
