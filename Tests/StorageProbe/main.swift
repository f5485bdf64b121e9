// storage-probe: a child process for FileStorageKit's crash, contention and fault tests.
//
// Each subcommand does one thing to a file or suite the test names, prints one line of result on
// stdout and exits 0 (`write-loop` never ends: the test kills it). A `FileStorageError` prints
// `error: <case>` and exits with that case's code (`ProbeExit`), so the test checks both. `ci/test`
// builds this program before the tests run; the tests find it beside their own executable. It takes
// its folders only from its arguments, never from the environment.
//
//     write-loop FILE [xml|binary]           writes versions 1, 2, ... forever; "ready <n>" after the first
//     defaults-increment FOLDER SUITE N      N × DefaultsSuite.increment("counter"); prints every value seen
//     defaults-set FOLDER SUITE KEY VALUE    DefaultsSuite.set(VALUE, forKey: KEY)
//     storage-increment FILE N               N × PlistFileStorage.update incrementing `Counter.count`
//     storage-set-key FILE KEY VALUE         PlistFileStorage.update adding KEY: VALUE to a [String: Int]
//     write-large FILE BYTES API             one write of more than BYTES (with --file-size-limit BYTES)
//     write-readonly FILE API                one write, expected to be refused
//     delete FILE API                        deletes FILE (API: storage, async or document); "ok"
//     read FILE API                          reads FILE (API: storage, document or defaults); "read <n> bytes"
//     power-writer API FOLDER START          writes k<i % 4> = i from START on forever; "acked <key> <value>"
//                                            after each write returned (PowerWriter.swift; PowerCutTests)
//     mkdir-and-hang FOLDER                  makes FOLDER and its missing parents with bare mkdirs (no
//                                            fsync), prints "made", waits to be killed (PowerCutTests:
//                                            a folder made by a process that died before flushing it)
//
// `ProbeOptions` (TestSupport) come before the command: `--start-after GATE` prints `waiting` and
// holds the work until the file GATE exists, so a batch of probes contends for real instead of
// starting one after another; `--file-size-limit BYTES` sets RLIMIT_FSIZE with SIGXFSZ ignored.
//
// API is `storage` (PlistFileStorage.write), `durable` (DurableFile.write) or `defaults`
// (DefaultsSuite.set on the suite named after FILE, in FILE's folder).
import FileStorageKit
import TestSupport
import Foundation
import PlistCodec
#if canImport(Glibc)
import Glibc
#endif

var arguments = Array(CommandLine.arguments.dropFirst())
let options = ProbeOptions.parse(&arguments)
options.applyLimits()
options.waitForGate()
guard !arguments.isEmpty else { usage("no command") }
let command = arguments.removeFirst()

do {
    switch command {
    case "write-loop":
        let formatName = arguments.count == 2 ? arguments[1] : "xml"
        guard (1...2).contains(arguments.count), let format = PlistFormat(rawValue: formatName), format != .openStep else {
            usage("write-loop FILE [xml|binary]")
        }
        try writeLoop(URL(fileURLWithPath: arguments[0]), format: format)
    case "defaults-increment":
        guard arguments.count == 3, let n = Int(arguments[2]) else { usage("defaults-increment FOLDER SUITE N") }
        let suite = DefaultsSuite(suiteName: arguments[1], folder: URL(fileURLWithPath: arguments[0]), lockTimeout: Probe.lockTimeout)
        var seen: [Int] = []
        for _ in 0..<n { seen.append(try suite.increment("counter")) }
        print("values " + seen.map(String.init).joined(separator: " "))
    case "defaults-set":
        guard arguments.count == 4, let value = Int(arguments[3]) else { usage("defaults-set FOLDER SUITE KEY VALUE") }
        let suite = DefaultsSuite(suiteName: arguments[1], folder: URL(fileURLWithPath: arguments[0]), lockTimeout: Probe.lockTimeout)
        try suite.set(value, forKey: arguments[2])
        print("ok")
    case "storage-increment":
        guard arguments.count == 2, let n = Int(arguments[1]) else { usage("storage-increment FILE N") }
        let storage = PlistFileStorage(lockTimeout: Probe.lockTimeout)
        let file = URL(fileURLWithPath: arguments[0])
        var seen: [Int] = []
        for _ in 0..<n {
            seen.append(try storage.update(at: file, default: Counter(count: 0)) { $0.count += 1 }.count)
        }
        print("values " + seen.map(String.init).joined(separator: " "))
    case "storage-set-key":
        guard arguments.count == 3, let value = Int(arguments[2]) else { usage("storage-set-key FILE KEY VALUE") }
        let storage = PlistFileStorage(lockTimeout: Probe.lockTimeout)
        let key = arguments[1]
        try storage.update(at: URL(fileURLWithPath: arguments[0]), default: [String: Int]()) { $0[key] = value }
        print("ok")
    case "write-large":
        // Run with `--file-size-limit BYTES` (ProcessFaults.runWithFileSizeLimit): the write fails with EFBIG.
        guard arguments.count == 3, let bytes = Int(arguments[1]) else { usage("write-large FILE BYTES API") }
        let large = Snapshot(version: -1, payloadSize: bytes * 2 + 64 * 1024)
        try write(large, to: URL(fileURLWithPath: arguments[0]), api: arguments[2])
        print("ok")
    case "write-readonly":
        guard arguments.count == 2 else { usage("write-readonly FILE API") }
        try write(Snapshot(version: -2, payloadSize: 1024), to: URL(fileURLWithPath: arguments[0]), api: arguments[1])
        print("ok")
    case "delete":
        guard arguments.count == 2 else { usage("delete FILE API") }
        try await delete(URL(fileURLWithPath: arguments[0]), api: arguments[1])
        print("ok")
    case "read":
        guard arguments.count == 2 else { usage("read FILE API") }
        print("read \(try read(URL(fileURLWithPath: arguments[0]), api: arguments[1])) bytes")
    case "power-writer":
        guard arguments.count == 3, let start = Int(arguments[2]) else { usage("power-writer API FOLDER START") }
        try PowerWriter.run(api: arguments[0], folder: URL(fileURLWithPath: arguments[1]), start: start)
    case "mkdir-and-hang":
        guard arguments.count == 1 else { usage("mkdir-and-hang FOLDER") }
        var missing: [String] = []
        var current = URL(fileURLWithPath: arguments[0]).standardizedFileURL
        while !FileManager.default.fileExists(atPath: current.path) {
            missing.append(current.path)
            current = current.deletingLastPathComponent()
        }
        for path in missing.reversed() where mkdir(path, 0o700) != 0 {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "mkdir \(path)"])
        }
        ProbeOutput.say("made")
        while true { pause() }
    default:
        usage("unknown command \(command)")
    }
    exit(ProbeExit.success.rawValue)
} catch let error as FileStorageError {
    print("error: \(error.caseName)")
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(ProbeExit(error).rawValue)
} catch {
    print("error: other")
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(ProbeExit.otherError.rawValue)
}
