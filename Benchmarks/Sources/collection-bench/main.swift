import BenchSupport
import CollectionStore
import Foundation

// collection-bench: CollectionStore's DataPersistence against the original design's
// load-append-rewrite loop (Foundation's encoder and decoder, Data.write(.atomic)), in one process,
// each side in its own subfolder of a fresh temporary folder. See Benchmarks/README.md.

let options = optionsOrExit(Options.parse(Array(CommandLine.arguments.dropFirst())), usage: Options.usage)
let root = (options.folder ?? FileManager.default.temporaryDirectory)
    .appendingPathComponent("collection-bench-\(UUID().uuidString.prefix(8).lowercased())", isDirectory: true)
defer { try? FileManager.default.removeItem(at: root) }

print("collection-bench: \(options.loop) and \(options.transaction) creates in one transaction vs as many original createItem calls; "
    + "then createItem at \(Options.sizes.map(String.init).joined(separator: ", ")) items, \(options.creates) creates each "
    + "(in rounds of \(Options.round), alternating, median round)")
print("folder: \(root.path) (\(fileSystemName(root)))")
print("ours: read + byte-compare with the cached file (no decode when unchanged) + PlistEncoder + fsync'd write under a file lock")
print("original: decode the whole file with PropertyListDecoder + PropertyListEncoder + Data.write(.atomic), no lock, no fsync\n")

var rows: [[String]] = []
var failures = 0
do {
    // 1. Many creates: one transaction against the original's loop, measured in full for --loop
    //    creates and, for --transaction creates, estimated from creates sampled along the way.
    for count in [options.loop, options.transaction] {
        let ours = DataPersistence<BenchCard>(filename: "cards.plist", directory: .folder(root.appendingPathComponent("tx-ours-\(count)")))
        let cards = (0..<count).map(BenchCard.init(number:))
        let oursTime = seconds(try ContinuousClock().measure { try ours.transaction { $0 += cards } })
        let estimate = try estimatedLoop(count: count, root: root.appendingPathComponent("sampled-\(count)"))
        var note = "estimated: \(format(estimate.total)) from \(estimate.points)"
        if count == options.loop {
            FileHandle.standardError.write(Data("  the original loop of \(count) creates, in full...\n".utf8))
            let original = try OriginalPersistence<BenchCard>(url: root.appendingPathComponent("tx-original/cards.plist"))
            let measured = seconds(try ContinuousClock().measure { for card in cards { try original.createItem(card) } })
            if try Data(contentsOf: ours.url) != Data(contentsOf: original.url) {
                print("check FAILED: the two files differ")
                failures += 1
            }
            rows.append(["\(count) creates: one transaction vs \(count) createItem calls", format(measured), format(oursTime),
                         String(format: "%.0fx", measured / oursTime), "measured; identical files; " + note])
        } else {
            note = "original " + note
            rows.append(["\(count) creates: one transaction vs \(count) createItem calls", format(estimate.total), format(oursTime),
                         String(format: "%.0fx", estimate.total / oursTime), note])
        }
    }

    // 2. The cost of one createItem at each size.
    for size in Options.sizes {
        let prefill = (0..<size).map(BenchCard.init(number:))
        let bytes = try PropertyListEncoder().encode(prefill)
        let oursFolder = root.appendingPathComponent("ours-\(size)")
        let originalFile = root.appendingPathComponent("original-\(size)/cards.plist")
        try FileManager.default.createDirectory(at: oursFolder, withIntermediateDirectories: true)
        try bytes.write(to: oursFolder.appendingPathComponent("cards.plist"))
        let original = try OriginalPersistence<BenchCard>(url: originalFile)
        try bytes.write(to: originalFile)
        let ours = DataPersistence<BenchCard>(filename: "cards.plist", directory: .folder(oursFolder))
        var next = size
        let creates = size >= 100_000 ? options.largeCreates : options.creates
        let rounds = max(1, creates / Options.round)
        FileHandle.standardError.write(Data("  createItem at \(size) items: \(rounds) rounds of \(Options.round)...\n".utf8))
        let (mine, theirs) = alternate(warmups: 1, runs: rounds, {
            for _ in 0..<Options.round { next += 1; try ours.createItem(BenchCard(number: next)) }
        }, {
            for _ in 0..<Options.round { next += 1; try original.createItem(BenchCard(number: next)) }
        })
        let oursPer = median(try mine.get().seconds) / Double(Options.round)
        let theirsPer = median(try theirs.get().seconds) / Double(Options.round)
        let count = try ours.loadItems().count
        if count != size + (rounds + 1) * Options.round {
            print("check FAILED: \(count) items after the creates at \(size)")
            failures += 1
        }
        rows.append(["one createItem at \(size) items", format(theirsPer), format(oursPer),
                     String(format: "%.1fx", theirsPer / oursPer), "\(rounds * Options.round) creates each"])
    }
} catch {
    print("collection-bench: \(error)")
    failures += 1
}

print("Results (original / ours above 1 means ours is faster):")
for line in alignedLines(header: ["case", "original", "ours", "original / ours", "note"], rows: rows, leftAligned: [0, 4]) {
    print(line)
}
exit(failures == 0 ? 0 : 1)

/// A duration in the unit that reads best.
func format(_ seconds: Double) -> String {
    seconds >= 1 ? String(format: "%.2f s", seconds) : seconds >= 1e-3 ? String(format: "%.2f ms", seconds * 1e3)
        : String(format: "%.1f µs", seconds * 1e6)
}
