import BenchSupport
import Foundation

/// Formats the results as a fixed-width table: time per operation on each side and the ratio.
func formatTable(_ results: [CaseResult]) -> String {
    let header = ["case", "unit", "Foundation", "ours", "Foundation / ours"]
    var rows = [header]
    for result in results {
        let scale = result.benchCase.nanoseconds ? 1e9 : 1e6
        rows.append([result.benchCase.name, result.benchCase.nanoseconds ? "ns/op" : "µs/op",
                     cell(result.foundation, scale), cell(result.ours, scale),
                     result.ratio.map { String(format: "%.2fx", $0) } ?? "n/a"])
    }
    var lines = alignedLines(header: header, rows: Array(rows.dropFirst()))
    for result in results {
        if case .failure(let error) = result.foundation { lines.append("\(result.benchCase.name): Foundation failed: \(error)") }
        if case .failure(let error) = result.ours { lines.append("\(result.benchCase.name): ours failed: \(error)") }
    }
    return lines.joined(separator: "\n")
}

private func cell(_ timing: Result<Timing, any Error>, _ scale: Double) -> String {
    guard case .success(let t) = timing else { return "error" }
    return String(format: t.median * scale >= 100 ? "%.0f" : "%.1f", t.median * scale)
}
