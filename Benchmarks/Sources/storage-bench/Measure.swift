import BenchSupport
import Foundation

/// The timing of one side of a benchmark case: the median time per operation over several runs.
struct Timing: Sendable {
    /// Every measured run's time per operation, in seconds, sorted.
    var runs: [Double]

    /// The median run's time per operation, in seconds.
    var median: Double { BenchSupport.median(runs) }
}

/// Measures two implementations of the same batch of `operations` operations, alternating them run by
/// run (see `alternate`).
func measurePair(warmups: Int, runs: Int, operations: Int, _ first: () throws -> Void, _ second: () throws -> Void)
    -> (Result<Timing, any Error>, Result<Timing, any Error>)
{
    let (a, b) = alternate(warmups: warmups, runs: runs, first, second)
    func perOperation(_ samples: Samples<Void>) -> Timing {
        Timing(runs: samples.seconds.map { $0 / Double(operations) }.sorted())
    }
    return (a.map(perOperation), b.map(perOperation))
}
