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

/// Measures one operation of the peer and one of ours in turn, `pairs` times after `warmups` pairs,
/// the peer first in even pairs and ours first in odd ones: on a disk shared with other work, where an
/// `fsync` takes 1 ms now and 10 ms a second later, neighbouring operations see the same load, and the
/// median of single operations ignores the spikes that a batch's total would carry.
func measureInterleaved(warmups: Int, pairs: Int, _ peer: () throws -> Void, _ ours: () throws -> Void)
    -> (Result<Timing, any Error>, Result<Timing, any Error>)
{
    let clock = ContinuousClock()
    var times: [[Double]] = [[], []]
    do {
        for pair in 0..<(warmups + pairs) {
            for turn in 0..<2 {
                let side = pair % 2 == 0 ? turn : 1 - turn
                let elapsed = try clock.measure { side == 0 ? try peer() : try ours() }
                if pair >= warmups { times[side].append(BenchSupport.seconds(elapsed)) }
            }
        }
    } catch {
        return (.failure(error), .failure(error))
    }
    return (.success(Timing(runs: times[0].sorted())), .success(Timing(runs: times[1].sorted())))
}
