import BenchSupport
import Foundation
import PlistCodec

/// One row of the results table: the same work done by Foundation and by PlistCodec.
struct BenchCase {
    /// `encode` or `decode`.
    var operation: String
    /// `binary` or `xml`.
    var format: String
    /// Foundation's implementation; returns the bytes written or read.
    var foundation: () throws -> Int
    /// PlistCodec's implementation; returns the bytes written or read.
    var ours: () throws -> Int

    var name: String { "\(operation) \(format)" }
}

/// The outcome of one row: a timing for each side, or the error that side threw.
struct CaseResult {
    var name: String
    var foundation: Result<Timing, any Error>
    var ours: Result<Timing, any Error>

    /// Foundation's median time divided by ours, when both ran.
    var speedup: Double? {
        guard case .success(let f) = foundation, case .success(let o) = ours else { return nil }
        return f.median / o.median
    }
}

/// Builds the eight measured closures over `records` (four rows, two sides each).
///
/// Decoding reads Foundation's bytes on both sides, so both decoders get exactly the same input.
func makeCases(records: [Record], binary: Data, xml: Data) -> [BenchCase] {
    func foundationEncoder(_ format: PropertyListSerialization.PropertyListFormat) -> PropertyListEncoder {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format
        return encoder
    }
    func ourEncoder(_ format: PlistFormat) -> PlistEncoder {
        var encoder = PlistEncoder()
        encoder.outputFormat = format
        return encoder
    }
    let foundationBinary = foundationEncoder(.binary), foundationXML = foundationEncoder(.xml)
    let ourBinary = ourEncoder(.binary), ourXML = ourEncoder(.xml)
    let foundationDecoder = PropertyListDecoder(), ourDecoder = PlistDecoder()

    return [
        BenchCase(operation: "encode", format: "binary",
                  foundation: { try foundationBinary.encode(records).count },
                  ours: { try ourBinary.encode(records).count }),
        BenchCase(operation: "decode", format: "binary",
                  foundation: { try foundationDecoder.decode([Record].self, from: binary).count > 0 ? binary.count : 0 },
                  ours: { try ourDecoder.decode([Record].self, from: binary).count > 0 ? binary.count : 0 }),
        BenchCase(operation: "encode", format: "xml",
                  foundation: { try foundationXML.encode(records).count },
                  ours: { try ourXML.encode(records).count }),
        BenchCase(operation: "decode", format: "xml",
                  foundation: { try foundationDecoder.decode([Record].self, from: xml).count > 0 ? xml.count : 0 },
                  ours: { try ourDecoder.decode([Record].self, from: xml).count > 0 ? xml.count : 0 }),
    ]
}

/// Runs each case, Foundation and ours taking turns, printing progress to standard error.
func run(_ cases: [BenchCase], warmups: Int, runs: Int) -> [CaseResult] {
    cases.map { benchCase in
        // Progress goes to standard error, so standard output holds only the results.
        FileHandle.standardError.write(Data("  measuring \(benchCase.name)\n".utf8))
        let (foundation, ours) = measurePair(warmups: warmups, runs: runs, benchCase.foundation, benchCase.ours)
        return CaseResult(name: benchCase.name, foundation: foundation, ours: ours)
    }
}
