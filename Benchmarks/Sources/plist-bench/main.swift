import BenchSupport
import Foundation
import PlistCodec

// plist-bench: PlistCodec against Foundation's property-list coders, in one process, on one dataset.
// See Benchmarks/README.md for how to read the output.

let options = DatasetOptions.fromCommandLine(program: "plist-bench")

print("plist-bench: \(options.records) records, seed 0x\(String(Dataset.seed, radix: 16)), "
    + "median of \(options.runs) runs after \(options.warmups) warm-up(s)")
let records = Dataset.make(count: options.records)

func foundationBytes(_ format: PropertyListSerialization.PropertyListFormat) -> Data {
    Dataset.foundationEncoded(records, format)
}
func ourBytes(_ format: PlistFormat) -> Result<Data, any Error> {
    var encoder = PlistEncoder()
    encoder.outputFormat = format
    return Result { try encoder.encode(records) }
}

let binary = foundationBytes(.binary)
let xml = foundationBytes(.xml)

if options.profileRow > 0 {
    let cases = makeCases(records: records, binary: binary, xml: xml)
    guard options.profileRow <= cases.count else { print("--profile-row: no row \(options.profileRow)"); exit(2) }
    let row = cases[options.profileRow - 1]
    let start = Date()
    for _ in 0..<options.runs { _ = try row.ours() }
    print(String(format: "%@ (ours only): %.1f ms per run", row.name, Date().timeIntervalSince(start) * 1000 / Double(options.runs)))
    exit(0)
}

print("\nSame bytes as PropertyListEncoder:")
let byteChecks = [
    compareBytes(format: "binary", foundation: binary, ours: ourBytes(.binary)),
    compareBytes(format: "xml", foundation: xml, ours: ourBytes(.xml)),
]
for check in byteChecks { print("  " + check.line) }

print("\nSame records as PropertyListDecoder:")
let decodeChecks = [compareDecoded(format: "binary", data: binary), compareDecoded(format: "xml", data: xml)]
for check in decodeChecks { print("  " + check.line) }

FileHandle.standardError.write(Data("measuring:\n".utf8))
let results = run(makeCases(records: records, binary: binary, xml: xml), warmups: options.warmups, runs: options.runs)
print("\nResults (median of \(options.runs) runs):")
print(formatTable(results))
print("")
print(goalLine(results, goal: 4))

let allChecksPass = byteChecks.allSatisfy(\.identical) && decodeChecks.allSatisfy(\.equal)
exit(allChecksPass ? 0 : 1)
