import BenchSupport
import Foundation

/// Formats the results as a fixed-width table: time per operation on each side, the ratio and the goal.
func formatTable(_ results: [CaseResult]) -> String {
    let header = ["case", "peer", "unit", "peer", "ours", "peer / ours", "goal"]
    var rows = [header]
    for result in results {
        let scale = result.benchCase.nanoseconds ? 1e9 : 1e6
        let goal = result.benchCase.goal.map { "\($0.label): \(result.goalMet == true ? "MET" : "NOT MET")" } ?? ""
        rows.append([result.benchCase.name, result.benchCase.peerName, result.benchCase.nanoseconds ? "ns/op" : "µs/op",
                     cell(result.peer, scale), cell(result.ours, scale),
                     result.ratio.map { String(format: $0 >= 100 ? "%.0fx" : "%.2fx", $0) } ?? "n/a", goal])
    }
    var lines = alignedLines(header: header, rows: Array(rows.dropFirst()), leftAligned: [0, 1, 2, 6])
    for result in results {
        let name = "\(result.benchCase.name) vs \(result.benchCase.peerName)"
        if case .failure(let error) = result.peer { lines.append("\(name): the peer failed: \(error)") }
        if case .failure(let error) = result.ours { lines.append("\(name): ours failed: \(error)") }
    }
    return lines.joined(separator: "\n")
}

private func cell(_ timing: Result<Timing, any Error>, _ scale: Double) -> String {
    guard case .success(let t) = timing else { return "error" }
    return String(format: t.median * scale >= 100 ? "%.0f" : "%.1f", t.median * scale)
}
