// collection-probe: a child process for CollectionStore's contention, crash and fault tests.
//
// Each command works on the file the test names (never on a folder from the environment), prints
// one line of result on stdout and exits 0; `create-loop` never ends (the test kills it). A
// `DataPersistenceError` prints `error: <description>` on stderr and exits 1.
//
//     create FILE PROCESS N        N × createItem(CollectionProbeItem(process: PROCESS, sequence: 1...N))
//     create-loop FILE PROCESS     createItem forever, continuing after the highest sequence of PROCESS
//                                  in the file; prints "ready <sequence>" after the first
//     create-one FILE PROCESS SEQ  one createItem
//     create-large FILE BYTES      one createItem with a note of about BYTES characters
//     tutorial-update FILE         the tutorial's non-throwing update(_:at: 0); prints "returned <Bool>"
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
    case "tutorial-update":
        // The tutorial's non-throwing update(_:at:) with no onError set: a failure is one line on stderr.
        guard arguments.count == 2 else { usage("tutorial-update FILE") }
        let updated = store.update(CollectionProbeItem(process: 0, sequence: 0), at: 0)
        print("returned \(updated)")
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
