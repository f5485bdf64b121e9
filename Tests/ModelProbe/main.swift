// model-probe: a child process for ModelPersistence's multi-process tests (MultiProcessTests).
//
// Each command works on `ProbeModel` in FOLDER (bound through `PersistenceLocation.$folder`, never the
// environment), prints its result on stdout and exits 0. A `PersistenceError` reported while it runs
// is printed as `error: <description>` on stderr and makes it exit 1. `ci/test` builds this program
// before the tests run; the tests find it beside their own executable.
//
//     increment FOLDER N                  N × `update { $0.count += 1 }`; prints "values v1 v2 ..."
//     set-a FOLDER VALUE                  `a = VALUE` (one durable set); prints "ok"
//     set-b FOLDER VALUE                  `b = VALUE`; prints "ok"
//     show FOLDER                         prints "count N", "a VALUE", "b VALUE"
//     some-model-show FOLDER              DocumentData's SomeModel instead (DocumentDataModel.swift):
//     some-model-set FOLDER STRING BOOL   prints its values, or sets two of them; FOLDER `-` is the default
//     some-model-dd-show, some-model-dd-set   the same in DocumentData's folder (`processFolder`)
//     wait-for FOLDER FIELD VALUE SECONDS prints "ready FIELD=<value>" after its first read, then polls
//                                         the getter until FIELD reads VALUE: prints
//                                         "seen FIELD=VALUE after <ms> ms", or exits 3 at the timeout
//
// `ProbeOptions` (TestSupport) come before the command: `--start-after GATE` loads the model, prints
// "waiting", and holds the work until the file GATE exists, so a batch of probes contends for real
// instead of starting one after another; `--file-size-limit BYTES` makes a larger write fail (EFBIG).
//
//     set-loop FOLDER                     sets `a` to version 1, 2, ... forever (a 4 KB string each);
//                                         prints "ready <n>" after the first (the crash test kills it)
//                                         and "acked a <n>" after each set returns (PowerCutTests)
//     power-check FOLDER                  prints "value a <n>": the version `a` holds (PowerCutTests
//                                         reads a store after a power cut); exits 1 on a reported error
import Foundation
import ModelPersistence
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

ProbeErrors.install()

var arguments = Array(CommandLine.arguments.dropFirst())
let options = ProbeOptions.parse(&arguments)
options.applyLimits()
guard arguments.count >= 2 else { usage("usage: [--start-after GATE] [--file-size-limit BYTES] COMMAND FOLDER ...") }
let command = arguments.removeFirst()
let folderArgument = arguments.removeFirst()
if command.hasPrefix("some-model-") {
    options.waitForGate()
    exit(runSomeModelCommand(command, folder: folderArgument, arguments))
}
let folder = URL(fileURLWithPath: folderArgument, isDirectory: true)

/// The instance, its folder resolved on first use inside the binding (and kept after it).
let model = PersistenceLocation.$folder.withValue(folder) { () -> ProbeModel in
    let model = ProbeModel()
    _ = model.count
    return model
}
options.waitForGate()

var status: Int32 = 0
switch command {
case "increment":
    guard arguments.count == 1, let n = Int(arguments[0]), n >= 0 else { usage("increment FOLDER N") }
    var seen: [Int] = []
    do {
        for _ in 0..<n {
            seen.append(try model.update { m -> Int in
                m.count += 1
                return m.count
            })
        }
    } catch {
        FileHandle.standardError.write(Data("error: update failed after \(seen.count): \(error)\n".utf8))
        status = 1
    }
    say("values " + seen.map(String.init).joined(separator: " "))
case "set-a", "set-b":
    guard arguments.count == 1 else { usage("\(command) FOLDER VALUE") }
    if command == "set-a" { model.a = arguments[0] } else { model.b = arguments[0] }
    say("ok")
case "set-loop":
    guard arguments.isEmpty else { usage("set-loop FOLDER") }
    var version = LoopValue.version(of: model.a) ?? 0
    var announced = false
    while true {
        version += 1
        model.a = LoopValue.text(version: version)
        if let error = model.persistenceError { usage("set-loop: \(error)") }
        // The setter returned without an error: the version is durable (PowerCutTests counts on it).
        say("acked a \(version)")
        if !announced {
            say("ready \(version)")
            announced = true
        }
    }
case "power-check":
    guard arguments.isEmpty else { usage("power-check FOLDER") }
    if let version = LoopValue.version(of: model.a) { say("value a \(version)") }
case "show":
    guard arguments.isEmpty else { usage("show FOLDER") }
    say("count \(model.count)")
    say("a \(model.a)")
    say("b \(model.b)")
case "wait-for":
    guard arguments.count == 3, let seconds = Double(arguments[2]), seconds > 0 else {
        usage("wait-for FOLDER FIELD VALUE SECONDS")
    }
    let field = arguments[0], expected = arguments[1]
    guard let first = model.text(of: field) else { usage("wait-for: FIELD is count, a or b, not \(field)") }
    say("ready \(field)=\(first)")
    let start = ContinuousClock.now
    let deadline = start + .milliseconds(Int64(seconds * 1000))
    var last = first
    while last != expected && ContinuousClock.now < deadline {
        usleep(500)
        last = model.text(of: field) ?? ""
    }
    if last == expected {
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
        say("seen \(field)=\(expected) after \(String(format: "%.1f", ms)) ms")
    } else {
        say("timeout \(field)=\(last)")
        status = 3
    }
default:
    usage("unknown command \(command)")
}
if status == 0 && ProbeErrors.count > 0 { status = 1 }
exit(status)
