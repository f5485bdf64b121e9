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
    let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    func line(_ row: [String]) -> String {
        row.enumerated().map { column, text in
            let pad = String(repeating: " ", count: widths[column] - text.count)
            return column == 0 ? text + pad : pad + text
        }.joined(separator: "  ")
    }
    var lines = [line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
    lines += rows.dropFirst().map(line)
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
