// graph-probe: a child process for StateGraph's contention, crash and fault tests (ProcessTests).
//
// Every command works on `ProbeGraph`, whose `@GraphStored` nodes are kept in the defaults suite
// `probe` of FOLDER (bound through `GraphStorageLocation.$folder`, never the environment or the
// current folder), prints its result on stdout and exits 0. A node's storage error prints
// `error: <FileStorageError case> <GraphStorageError>` on stderr (`other` when it has no file
// error) and exits 1. `ci/test` builds this program before the tests run.
//
//     increment FOLDER N          N × one atomic read-modify-write of `count` through the node's suite
//                                 (`$count.suite.update(forKey:)`: StateGraph has no read-modify-write
//                                 of its own, and `count += 1` is a read and a set); prints "values v1 v2 ..."
//     set-keys FOLDER PROCESS M   makes M nodes with keys of its own (GraphProbeSuite.ownKey) and sets
//                                 node i to i, one durable set each; prints "set M"
//     set-loop FOLDER             sets `count` to its value + 1 forever, one durable set each, and
//                                 prints "ready <n>" after each set of n returns (the crash test kills it)
//                                 and "acked count <n>" too (PowerCutTests)
//     power-check FOLDER          reloads the suite (a damaged file fails) and prints "value count <n>"
//     set-count FOLDER N          `count = N`; prints "ok"
//     set-text FOLDER LENGTH      `text` = LENGTH × "x"; prints "ok"
//
// `ProbeOptions` (TestSupport) come before the command: `--start-after GATE` makes the graph, prints
// `waiting`, and holds the work until the file GATE exists, so a batch of probes contends for real;
// `--file-size-limit BYTES` makes a larger write fail with EFBIG.
import FileStorageKit
import Foundation
import PlistCodec
import StateGraph
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Prints the storage error the way the tests match it and exits 1.
func fail(_ error: GraphStorageError) -> Never {
    let name = error.fileError.flatMap { Mirror(reflecting: $0).children.first?.label } ?? "other"
    FileHandle.standardError.write(Data("error: \(name) \(error)\n".utf8))
    exit(1)
}

/// Exits through `fail` if the last set of `node` did not reach the file.
func check<Value: Codable, S>(_ node: StoredNode<Value, S>) {
    if let error = node.storageError { fail(error) }
}

var arguments = Array(CommandLine.arguments.dropFirst())
let options = ProbeOptions.parse(&arguments)
options.applyLimits()
guard arguments.count >= 2 else { ProbeOutput.usage("graph-probe", "[--start-after GATE] [--file-size-limit BYTES] COMMAND FOLDER ...") }
let command = arguments.removeFirst()
let folder = URL(fileURLWithPath: arguments.removeFirst(), isDirectory: true)
let graph = GraphStorageLocation.$folder.withValue(folder) { ProbeGraph() }
options.waitForGate()

switch command {
case "increment":
    guard arguments.count == 1, let n = Int(arguments[0]), n >= 0 else { ProbeOutput.usage("graph-probe", "increment FOLDER N") }
    guard let suite = graph.$count.suite else { ProbeOutput.usage("graph-probe", "increment: count is not suite-backed") }
    var seen: [Int] = []
    do {
        for _ in 0..<n {
            seen.append(try suite.update(forKey: GraphProbeSuite.countKey) { value -> Int in
                let next = (value?.intValue ?? 0) + 1
                value = .int(next)
                return next
            })
        }
    } catch {
        FileHandle.standardError.write(Data("error: update failed after \(seen.count): \(error)\n".utf8))
        exit(1)
    }
    ProbeOutput.say("values " + seen.map(String.init).joined(separator: " "))
case "set-keys":
    guard arguments.count == 2, let process = Int(arguments[0]), let m = Int(arguments[1]), m >= 1 else {
        ProbeOutput.usage("graph-probe", "set-keys FOLDER PROCESS M")
    }
    let nodes = GraphStorageLocation.$folder.withValue(folder) {
        (1...m).map { StoredNode(name: "own", backing: .userDefaults(suite: GraphProbeSuite.name,
                                                                 key: GraphProbeSuite.ownKey(process: process, index: $0)),
                             defaultValue: 0) }
    }
    for (index, node) in zip(1..., nodes) {
        node.wrappedValue = index
        check(node)
    }
    ProbeOutput.say("set \(m)")
case "set-loop":
    guard arguments.isEmpty else { ProbeOutput.usage("graph-probe", "set-loop FOLDER") }
    var value = graph.count
    while true {
        value += 1
        graph.count = value
        check(graph.$count)
        // The graph's memory follows its own set at once (the file is checked by the test).
        guard graph.doubled == 2 * value else { ProbeOutput.usage("graph-probe", "set-loop: doubled is \(graph.doubled), count is \(graph.count) after a set of \(value)") }
        ProbeOutput.say("ready \(value)")
        ProbeOutput.say("acked count \(value)")   // the set returned without a storage error (PowerCutTests)
    }
case "power-check":
    let suite = DefaultsSuite(suiteName: GraphProbeSuite.name, folder: folder)
    do {
        try suite.reload()
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
    if suite.object(forKey: GraphProbeSuite.countKey) != nil { ProbeOutput.say("value count \(suite.integer(forKey: GraphProbeSuite.countKey))") }
case "set-count":
    guard arguments.count == 1, let n = Int(arguments[0]) else { ProbeOutput.usage("graph-probe", "set-count FOLDER N") }
    graph.count = n
    check(graph.$count)
    ProbeOutput.say("ok")
case "set-text":
    guard arguments.count == 1, let length = Int(arguments[0]), length >= 0 else { ProbeOutput.usage("graph-probe", "set-text FOLDER LENGTH") }
    graph.text = String(repeating: "x", count: length)
    check(graph.$text)
    ProbeOutput.say("ok")
default:
    ProbeOutput.usage("graph-probe", "unknown command \(command)")
}
exit(0)
