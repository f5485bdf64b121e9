import BenchSupport
import Foundation
import PlistCodec

// plist-tree-bench: PlistCodec's value tree (`PlistValue(parsing:)`, `serialized(as:)`) against
// libplist (C) and Foundation's PropertyListSerialization, in one process, on plist-bench's dataset.
// See Benchmarks/README.md for how to read the output and how to install libplist.

let options = DatasetOptions.fromCommandLine(program: "plist-tree-bench")
let libplist: LibPlist
switch LibPlist.load() {
case .success(let loaded): libplist = loaded
case .failure(let error):
    print("plist-tree-bench: \(error.message)")
    exit(2)
}
print("plist-tree-bench: \(options.records) records, seed 0x\(String(Dataset.seed, radix: 16)), "
    + "median of \(options.runs) runs after \(options.warmups) warm-up(s); libplist from \(libplist.path)")

let records = Dataset.make(count: options.records)

/// One case: the same work three ways. Each closure returns a byte or node count, so nothing is optimized away.
struct Case {
    var name: String
    var ours: () throws -> Int
    var libplist: () throws -> Int
    var foundation: () throws -> Int
}

/// The three sides' medians, in seconds.
struct Outcome {
    var name: String
    var seconds: [Double]   // ours, libplist, Foundation
}

func measure(_ c: Case) throws -> Outcome {
    let sides = [c.ours, c.libplist, c.foundation]
    for side in sides { for _ in 0..<options.warmups { _ = try side() } }
    var samples: [[Double]] = [[], [], []]
    let clock = ContinuousClock()
    // Round by round, so a change in machine load affects every side about equally.
    for _ in 0..<options.runs {
        for (index, side) in sides.enumerated() {
            var sink = 0
            let elapsed = try clock.measure { sink = try side() }
            if sink < 0 { print(sink) }
            samples[index].append(BenchSupport.seconds(elapsed))
        }
    }
    return Outcome(name: c.name, seconds: samples.map(median))
}

/// Runs PlistCodec's side of `c` alone, `--runs` times, prints the time per run and exits.
func profile(_ c: Case) throws -> Never {
    let clock = ContinuousClock()
    var sink = 0
    let elapsed = try clock.measure { for _ in 0..<options.runs { sink &+= try c.ours() } }
    print(String(format: "%@ (ours only): %.2f ms per run", c.name, BenchSupport.seconds(elapsed) * 1000 / Double(options.runs))
        + (sink < 0 ? " \(sink)" : ""))
    exit(0)
}

var outcomes: [Outcome] = []
var checks: [String] = []
var row = 0
for (label, format, foundationFormat) in [("binary", PlistFormat.binary, PropertyListSerialization.PropertyListFormat.binary),
                                          ("XML", .xml, .xml)] {
    let isBinary = format == .binary
    let file = Dataset.foundationEncoded(records, foundationFormat)
    let ourTree = try PlistValue(parsing: file)
    let theirTree = try libplist.parse(file, binary: isBinary)
    defer { libplist.free(theirTree) }
    let foundationTree = try PropertyListSerialization.propertyList(from: file, options: [], format: nil)

    // Checks, not timed: each side read the whole file, and what libplist writes reads back as our tree.
    let roundTrip = try PlistValue(parsing: libplist.bytes(theirTree, binary: isBinary))
    checks.append("\(label): libplist's rewrite of the file reads back as the same tree: "
        + (firstDifference(ourTree, roundTrip).map { "NO, first at \($0)" } ?? "yes"))

    let cases = [
        Case(
            name: "parse \(label) (\(file.count / 1024) KB) to a tree",
            ours: { _ = try PlistValue(parsing: file); return 1 },
            libplist: { let node = try libplist.parse(file, binary: isBinary); libplist.free(node); return 1 },
            foundation: { _ = try PropertyListSerialization.propertyList(from: file, options: [], format: nil); return 1 }),
        Case(
            name: "write a tree as \(label)",
            ours: { try ourTree.serialized(as: format).count },
            libplist: { libplist.write(theirTree, binary: isBinary) },
            foundation: { try PropertyListSerialization.data(fromPropertyList: foundationTree, format: foundationFormat, options: 0).count }),
    ]
    if options.profileRow == 0 { FileHandle.standardError.write(Data("measuring \(label)\n".utf8)) }
    for c in cases {
        row += 1
        if options.profileRow == row { try profile(c) }
        if options.profileRow == 0 { outcomes.append(try measure(c)) }
    }
}
if options.profileRow > 0 {
    print("--profile-row: no row \(options.profileRow) (the rows are 1 to \(row))")
    exit(2)
}

print("\nChecks:")
for line in checks { print("  " + line) }
print("\nResults (median time per run, ms; above 1 means ours is faster):")
let rows = outcomes.map { o -> [String] in
    let (ours, theirs, foundation) = (o.seconds[0], o.seconds[1], o.seconds[2])
    return [o.name, String(format: "%.2f", ours * 1000), String(format: "%.2f", theirs * 1000), String(format: "%.2f", foundation * 1000),
            String(format: "%.2fx", theirs / ours), String(format: "%.2fx", foundation / ours)]
}
for line in alignedLines(header: ["case", "ours", "libplist", "Foundation", "libplist / ours", "Foundation / ours"], rows: rows) {
    print(line)
}
print("\nGoals (issue 17):")
for o in outcomes {
    let ratio = o.seconds[1] / o.seconds[0]
    let goal = o.name.hasPrefix("parse") ? 1.0 : 3.0
    print("  \(o.name): at least \(Int(goal))x libplist: \(ratio >= goal ? "MET" : "NOT MET") (\(String(format: "%.2fx", ratio)))")
}
exit(checks.allSatisfy { $0.hasSuffix("yes") } ? 0 : 1)
