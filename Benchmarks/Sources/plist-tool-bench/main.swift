import BenchSupport
import Foundation
import PlistCodec

// plist-tool-bench: the `plist` program on a large binary property list of plist-bench's records,
// beside Debian's `plistutil`: time and peak memory (the child's ru_maxrss) of each step.
// See Benchmarks/README.md ("plist-tool-bench") for how to build and read it.

let usage = """
    usage: plist-tool-bench [--megabytes N] [--limit SECONDS] [--plist PATH] [--plistutil PATH] [--folder PATH]
      --megabytes N     size of the generated binary property list (default 100)
      --limit SECONDS   stop a step that runs longer (default 600): its row says "killed"
      --plist PATH      the plist program (default: the release build under .build-plist or .build)
      --plistutil PATH  libplist's converter (default /usr/bin/plistutil; apt-get install libplist-utils)
      --folder PATH     where to write the files (default: a temporary folder, removed afterwards)
    """

if CommandLine.arguments.dropFirst().first == "--measure-child" {
    measureChildMain(Array(CommandLine.arguments.dropFirst(2)))
}

var megabytes = 100
var limit = 600
var folder: URL?
var plistPath: String?
var plistutilPath = "/usr/bin/plistutil"
var rest: [String] = []
var arguments = Array(CommandLine.arguments.dropFirst())[...]
while let word = arguments.popFirst() {
    if word == "--plist" || word == "--plistutil", let path = arguments.popFirst() {
        if word == "--plist" { plistPath = path } else { plistutilPath = path }
    } else {
        rest.append(word)
    }
}
if let error = parseOptions(rest, usage: usage, numbers: ["--megabytes": (1, { megabytes = $0 }), "--limit": (1, { limit = $0 })], folder: { folder = $0 }) {
    print(error.message)
    exit(error.message == usage ? 0 : 2)
}
#if DEBUG
print("warning: this is a debug build of the benchmark; the plist program's own build is what is timed.")
#endif

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let candidates = [".build-plist/release/plist", ".build/release/plist"].map { root.appendingPathComponent($0).path }
guard let plist = plistPath ?? candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
    print("plist-tool-bench: no release build of plist; build one with\n  swift build -c release --product plist\n(or pass --plist PATH)")
    exit(2)
}
let hasPlistutil = FileManager.default.isExecutableFile(atPath: plistutilPath)

let ownFolder = folder == nil
let work = folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("plist-tool-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { if ownFolder { try? FileManager.default.removeItem(at: work) } }
func file(_ name: String) -> String { work.appendingPathComponent(name).path }

print("plist-tool-bench: \(megabytes) MB target, seed 0x\(String(Dataset.seed, radix: 16)), plist at \(plist)")
print(fileSystemName(work))
let (input, recordCount) = try Dataset.binaryFile(approximately: megabytes * 1_000_000)
try input.write(to: URL(fileURLWithPath: file("input.plist")))
let size = input.count
print("input: \(recordCount) records, \(size) bytes binary (\(String(format: "%.1f", Double(size) / 1e6)) MB)\n")

struct Step {
    var name: String
    var tool: String
    var budget: Double?
    var run: ChildRun
}

var steps: [Step] = []
let stepLimit = limit
func measure(_ name: String, _ tool: String, budget: Double?, _ executable: String, _ arguments: [String]) -> Step {
    let run = measureChild(executable, arguments, errorFile: URL(fileURLWithPath: file("stderr.txt")), limit: stepLimit)
    if run.status != 0 { print("\(tool) \(name) failed (status \(run.status)): \(run.errors)") }
    return Step(name: name, tool: tool, budget: budget, run: run)
}

steps.append(measure("baseline (/bin/true)", "-", budget: nil, "/bin/true", []))
steps.append(measure("lint binary", "plist", budget: 2, plist, ["-lint", "-s", file("input.plist")]))
steps.append(measure("binary -> xml", "plist", budget: 4, plist, ["-convert", "xml1", "-o", file("ours.xml"), file("input.plist")]))
steps.append(measure("xml -> binary", "plist", budget: 4, plist, ["-convert", "binary1", "-o", file("ours-back.plist"), file("ours.xml")]))
if hasPlistutil {
    steps.append(measure("binary -> xml", "plistutil", budget: nil, plistutilPath, ["-i", file("input.plist"), "-o", file("theirs.xml"), "-f", "xml"]))
    steps.append(measure("xml -> binary", "plistutil", budget: nil, plistutilPath, ["-i", file("theirs.xml"), "-o", file("theirs-back.plist"), "-f", "bin"]))
} else {
    print("plistutil not found at \(plistutilPath): install it with `apt-get install -y libplist-utils`")
}

func megabytesText(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1e6) }
let rows = steps.map { step -> [String] in
    let ratio = Double(step.run.peakBytes) / Double(size)
    let verdict = step.budget.map { ratio < $0 ? "MET (< \(Int($0))x)" : "MISSED (>= \(Int($0))x)" } ?? "-"
    return [step.name, step.tool, String(format: "%.2f", step.run.seconds), megabytesText(step.run.peakBytes),
            String(format: "%.2fx", ratio), step.run.status == 0 ? verdict : step.run.status == -9 ? "killed at --limit" : "FAILED"]
}
for line in alignedLines(header: ["step", "tool", "seconds", "peak MB", "peak/input", "budget"], rows: rows, leftAligned: [0, 1, 5]) {
    print(line)
}

// The way back must be the same document: its XML (streamed in-process) equals the XML written.
print("")
if let back = try? Data(contentsOf: URL(fileURLWithPath: file("ours-back.plist")), options: .alwaysMapped),
   let xml = try? Data(contentsOf: URL(fileURLWithPath: file("ours.xml")), options: .alwaysMapped) {
    var again = Data()
    try PlistStreaming.writeXML(fromBinary: back, mode: .coreFoundation) { again += $0 }
    print("round trip: xml \(xml.count) bytes, binary back \(back.count) bytes; "
        + (again == xml ? "the binary converts back to the same XML" : "DIFFERENT: the binary does not convert back to the same XML"))
}
let missed = steps.contains { step in
    step.tool == "plist" && (step.run.status != 0 || step.budget.map { Double(step.run.peakBytes) / Double(size) >= $0 } ?? false)
}
print("goal: plist within budget on every step: \(missed ? "MISSED" : "MET")")
