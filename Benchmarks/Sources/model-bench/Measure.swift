import BenchSupport
import Foundation

/// The timing of one side of a benchmark case: the median time per operation over several runs.
struct Timing: Sendable {
    /// Every measured run's time per operation, in seconds, sorted.
    var runs: [Double]

    /// The median run's time per operation, in seconds.
    var median: Double { BenchSupport.median(runs) }
}

/// Measures the peer's and our batch of the same work, alternating them run by run (see `alternate`).
/// `peerOperations` and `ourOperations` are the operations in one batch of each side (they differ
/// where the peer is slow).
func measurePair(warmups: Int, runs: Int, peerOperations: Int, ourOperations: Int,
                 _ peer: () throws -> Void, _ ours: () throws -> Void)
    -> (Result<Timing, any Error>, Result<Timing, any Error>)
{
    let (a, b) = alternate(warmups: warmups, runs: runs, peer, ours)
    func perOperation(_ operations: Int) -> (Samples<Void>) -> Timing {
        { Timing(runs: $0.seconds.map { $0 / Double(operations) }.sorted()) }
    }
    return (a.map(perOperation(peerOperations)), b.map(perOperation(ourOperations)))
}
