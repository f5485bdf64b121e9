// graph-bench: StateGraph's nodes against an @Observable class of the same shape, in one process.
//
//   swift build -c release --package-path Benchmarks --scratch-path Benchmarks/.build
//   Benchmarks/.build/release/graph-bench [--iterations N] [--chain N] [--runs N] [--warmups N]
import BenchSupport
import Foundation
import Observation
import StateGraph

struct Options {
    var iterations = 1_000_000
    var chain = 1_000
    var chainIterations = 2_000
    var trackingIterations = 20_000
    var runs = 7
    var warmups = 1
}

let usage = """
    usage: graph-bench [--iterations N] [--chain N] [--chain-iterations N] [--tracking-iterations N] [--runs N] [--warmups N]
      --iterations N        operations per run for the single-node cases (default 1000000)
      --chain N             computed nodes in the chain (default 1000)
      --chain-iterations N  operations per run for the chain cases (default 2000)
      --tracking-iterations N  changes per run for the continuing-tracking case (default 20000)
      --runs N              measured runs per case, alternating the two sides (default 7)
      --warmups N           unmeasured runs per side first (default 1)
    """

var parsed = Options()
let mistake = parseOptions(Array(CommandLine.arguments.dropFirst()), usage: usage, numbers: [
    "--iterations": (1, { parsed.iterations = $0 }),
    "--chain": (1, { parsed.chain = $0 }),
    "--chain-iterations": (1, { parsed.chainIterations = $0 }),
    "--tracking-iterations": (1, { parsed.trackingIterations = $0 }),
    "--runs": (1, { parsed.runs = $0 }),
    "--warmups": (0, { parsed.warmups = $0 }),
])
let options = optionsOrExit(mistake.map { .failure($0) } ?? .success(parsed), usage: usage)

/// One row of the table: nanoseconds per operation on each side, and their ratio.
struct Row {
    var name: String
    var graph: Double
    var observation: Double
    var ratio: Double { graph / observation }
}

/// Times `graph` and `observation` (each doing `count` operations per run), alternating them.
func measure(_ name: String, count: Int, graph: () -> Int, observation: () -> Int) -> Row {
    let (ours, theirs) = alternate(warmups: options.warmups, runs: options.runs, graph, observation)
    func perOperation(_ result: Result<Samples<Int>, any Error>) -> Double {
        guard case .success(let samples) = result else { return .nan }
        return median(samples.seconds) / Double(count) * 1e9
    }
    // The checksums must agree: both sides did the same work.
    if case .success(let a) = ours, case .success(let b) = theirs, a.last != b.last {
        print("warning: \(name): checksums differ (\(a.last ?? 0) vs \(b.last ?? 0))")
    }
    return Row(name: name, graph: perOperation(ours), observation: perOperation(theirs))
}

let n = options.iterations
print("graph-bench: \(n) operations per run, chain of \(options.chain) nodes (\(options.chainIterations) operations per run), "
    + "median of \(options.runs) runs after \(options.warmups) warm-up(s)")
print("")

var rows: [Row] = []

do {
    let graph = GraphCounter()
    let observable = ObservableCounter()
    rows.append(measure("stored write", count: n, graph: {
        for i in 0..<n { graph.count = i }
        return graph.count
    }, observation: {
        for i in 0..<n { observable.count = i }
        return observable.count
    }))
    rows.append(measure("stored read", count: n, graph: {
        var sum = 0
        for _ in 0..<n { sum &+= graph.count }
        return sum
    }, observation: {
        var sum = 0
        for _ in 0..<n { sum &+= observable.count }
        return sum
    }))
    rows.append(measure("computed read (unchanged)", count: n, graph: {
        var sum = 0
        for _ in 0..<n { sum &+= graph.doubled }
        return sum
    }, observation: {
        var sum = 0
        for _ in 0..<n { sum &+= observable.doubled }
        return sum
    }))
    rows.append(measure("stored write, then computed read", count: n, graph: {
        var sum = 0
        for i in 0..<n {
            graph.count = i
            sum &+= graph.doubled
        }
        return sum
    }, observation: {
        var sum = 0
        for i in 0..<n {
            observable.count = i
            sum &+= observable.doubled
        }
        return sum
    }))
}

do {
    let graph = GraphChain(length: options.chain)
    let observable = ObservableChain(length: options.chain)
    let m = options.chainIterations
    rows.append(measure("chain: read the tail (unchanged)", count: m, graph: {
        var sum = 0
        for _ in 0..<m { sum &+= graph.tail }
        return sum
    }, observation: {
        var sum = 0
        for _ in 0..<m { sum &+= observable.tail }
        return sum
    }))
    rows.append(measure("chain: write the head, then read the tail", count: m, graph: {
        var sum = 0
        for i in 0..<m {
            graph.head.wrappedValue = i
            sum &+= graph.tail
        }
        return sum
    }, observation: {
        var sum = 0
        for i in 0..<m {
            observable.head.value = i
            sum &+= observable.tail
        }
        return sum
    }))
}
do {
    // Continuing observation: each change delivered to a closure that keeps tracking, in a task (as
    // a UI's observation would be), before the next change is made. StateGraph: one
    // withGraphTrackingMap scope. Observation: withObservationTracking registered again after each
    // change, the documented way to keep observing.
    let m = options.trackingIterations
    rows.append(measure("tracking: write, delivered to a continuing observer", count: m, graph: {
        trackWithGraphScope(changes: m)
    }, observation: {
        trackWithObservation(changes: m)
    }))
}

let table = alignedLines(header: ["case", "StateGraph ns/op", "Observation ns/op", "ratio (graph/observation)"],
                         rows: rows.map { row in
                             [row.name, String(format: "%.1f", row.graph), String(format: "%.1f", row.observation),
                              String(format: "%.2fx", row.ratio)]
                         })
table.forEach { print($0) }
print("")
print("A ratio below 1 means StateGraph is faster. Goals (issue 17): every read case at most 1x; a stored write")
print("then a computed read at most 2x; the chain's write-the-head-then-read-the-tail at most 20x (stretch: 10x).")
let goals: [(name: String, limit: Double)] = [
    ("stored read", 1), ("computed read (unchanged)", 1), ("chain: read the tail (unchanged)", 1),
    ("stored write, then computed read", 2), ("chain: write the head, then read the tail", 20),
]
for goal in goals {
    guard let row = rows.first(where: { $0.name == goal.name }) else { continue }
    let verdict = row.ratio <= goal.limit ? "met" : "NOT met"
    print("  \(goal.name): \(String(format: "%.2fx", row.ratio)) (goal <= \(String(format: "%.0fx", goal.limit))): \(verdict)")
}
