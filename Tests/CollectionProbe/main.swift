// collection-probe: a child process for CollectionStore's contention, crash and fault tests.
//
// Each command but `tutorial-decks` works on the file the test names (never on a folder from the
// environment), prints its result on stdout and exits 0; `create-loop` never ends (the test kills
// it). A `DataPersistenceError` prints `error: <description>` on stderr and exits 1.
//
//     create FILE PROCESS N        N × createItem(CollectionProbeItem(process: PROCESS, sequence: 1...N))
//     create-loop FILE PROCESS     createItem forever, continuing after the highest sequence of PROCESS
//                                  in the file; prints "ready <sequence>" after the first
//                                  and "acked p<PROCESS> <sequence>" after each createItem returns
//     create-one FILE PROCESS SEQ  one createItem
//     power-check FILE             for each process, "value p<PROCESS> <n>": every item 1...n is there and
//                                  intact (PowerCutTests reads a store after a power cut)
//     create-large FILE BYTES      one createItem with a note of about BYTES characters
//     tutorial-failures FILE       the tutorial's five non-throwing calls on FILE, with no onError set;
//                                  prints what each returned (TutorialCommands.swift)
//     tutorial-decks [NAME...]     the tutorial's DataPersistence(filename: "fileName.plist") in the
//                                  documents folder of this process's HOME: prints its path and items,
//                                  then appends a deck per NAME (TutorialCommands.swift)
//
// `ProbeOptions` (TestSupport) come before the command: `--start-after GATE` prints `waiting` and
// holds the work until the file GATE exists, so a batch of probes contends for real instead of
// starting one after another; `--file-size-limit BYTES` makes a larger write fail with EFBIG.
import CollectionStore
import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Prints `message` on stderr and exits with status 2.
func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("usage: collection-probe \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
let options = ProbeOptions.parse(&arguments)
options.applyLimits()
options.waitForGate()
if arguments.first == "tutorial-decks" {
    do {
        try tutorialDecks(Array(arguments.dropFirst()))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}
guard arguments.count >= 2 else { usage("create|create-loop|create-one FILE ...") }
let command = arguments[0]
let file = URL(fileURLWithPath: arguments[1])
let store = DataPersistence<CollectionProbeItem>(filename: file.lastPathComponent,
                                                 directory: .folder(file.deletingLastPathComponent()),
                                                 lockTimeout: .seconds(60))
do {
    switch command {
    case "create":
        guard arguments.count == 4, let process = Int(arguments[2]), let n = Int(arguments[3]) else {
            usage("create FILE PROCESS N")
        }
        for sequence in 1...max(1, n) { try store.createItem(CollectionProbeItem(process: process, sequence: sequence)) }
        print("created \(n)")
    case "create-loop":
        guard arguments.count == 3, let process = Int(arguments[2]) else { usage("create-loop FILE PROCESS") }
        var sequence = try store.loadItems().filter { $0.process == process }.map(\.sequence).max() ?? 0
        var announced = false
        while true {
            sequence += 1
            try store.createItem(CollectionProbeItem(process: process, sequence: sequence, noteLength: 400))
            // createItem returned: the item is durable (PowerCutTests counts on it).
            print("acked p\(process) \(sequence)")
            fflush(nil)
            if !announced {
                print("ready \(sequence)")
                fflush(nil)
                announced = true
            }
        }
    case "create-large":
        // One item with a note of BYTES characters (with --file-size-limit, more than the file may hold).
        guard arguments.count == 3, let bytes = Int(arguments[2]) else { usage("create-large FILE BYTES") }
        try store.createItem(CollectionProbeItem(process: 9, sequence: 1, noteLength: bytes))
        print("created 1")
    case "tutorial-failures":
        guard arguments.count == 2 else { usage("tutorial-failures FILE") }
        tutorialFailures(store)
    case "power-check":
        guard arguments.count == 2 else { usage("power-check FILE") }
        var sequences: [Int: Set<Int>] = [:]
        for item in try store.loadItems() {
            guard item.isIntact else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "item \(item.id) is not intact"]) }
            sequences[item.process, default: []].insert(item.sequence)
        }
        for (process, present) in sequences.sorted(by: { $0.key < $1.key }) {
            var n = 0
            while present.contains(n + 1) { n += 1 }
            print("value p\(process) \(n)")
        }
    case "create-one":
        guard arguments.count == 4, let process = Int(arguments[2]), let sequence = Int(arguments[3]) else {
            usage("create-one FILE PROCESS SEQ")
        }
        try store.createItem(CollectionProbeItem(process: process, sequence: sequence))
        print("created 1")
    default:
        usage("unknown command \(command)")
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
