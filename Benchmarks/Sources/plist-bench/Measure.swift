import BenchSupport
import Foundation

/// The timing of one benchmark case: the median of several runs after a warm-up.
struct Timing: Sendable {
    /// Every measured run, in seconds, sorted.
    var runs: [Double]
    /// Bytes processed per run (the size of the property list written or read).
    var bytes: Int

    /// The median run, in seconds.
    var median: Double { BenchSupport.median(runs) }

    /// The median in milliseconds.
    var milliseconds: Double { median * 1000 }

    /// Throughput at the median, in megabytes (10^6 bytes) per second.
    var megabytesPerSecond: Double { Double(bytes) / median / 1_000_000 }
}

/// Measures two implementations of the same work (each returning the bytes it processed),
/// alternating them run by run (see `alternate`).
func measurePair(warmups: Int, runs: Int, _ first: () throws -> Int, _ second: () throws -> Int)
    -> (Result<Timing, any Error>, Result<Timing, any Error>)
{
    let (a, b) = alternate(warmups: warmups, runs: runs, first, second)
    func timing(_ samples: Samples<Int>) -> Timing { Timing(runs: samples.seconds.sorted(), bytes: samples.last ?? 0) }
    return (a.map(timing), b.map(timing))
}
