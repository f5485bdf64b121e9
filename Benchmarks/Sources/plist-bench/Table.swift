import BenchSupport
import Foundation

/// Formats the results as a fixed-width table.
func formatTable(_ results: [CaseResult]) -> String {
    let header = ["case", "Foundation ms", "Foundation MB/s", "ours ms", "ours MB/s", "speedup"]
    var rows = [header]
    for result in results {
        rows.append([result.name] + cells(result.foundation) + cells(result.ours)
            + [result.speedup.map { String(format: "%.2fx", $0) } ?? "n/a"])
    }
    var lines = alignedLines(header: header, rows: Array(rows.dropFirst()))
    for result in results {
        if case .failure(let error) = result.foundation { lines.append("\(result.name): Foundation failed: \(describe(error))") }
        if case .failure(let error) = result.ours { lines.append("\(result.name): ours failed: \(describe(error))") }
    }
    return lines.joined(separator: "\n")
}

private func cells(_ timing: Result<Timing, any Error>) -> [String] {
    switch timing {
    case .success(let t): return [String(format: "%.1f", t.milliseconds), String(format: "%.1f", t.megabytesPerSecond)]
    case .failure: return ["error", "-"]
    }
}

/// One line saying whether every case reaches `goal` times Foundation's speed.
func goalLine(_ results: [CaseResult], goal: Double) -> String {
    let speedups = results.compactMap { r in r.speedup.map { (r.name, $0) } }
    let target = String(format: "goal: ours >= %.0fx Foundation in every case: ", goal)
    guard speedups.count == results.count, let slowest = speedups.min(by: { $0.1 < $1.1 }) else {
        return target + "NOT MEASURED (some cases failed)"
    }
    let verdict = slowest.1 >= goal ? "MET" : "NOT MET"
    return target + verdict + String(format: " (lowest: %@ at %.2fx)", slowest.0, slowest.1)
}
