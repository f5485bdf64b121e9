import Foundation

/// The timing of one side of a benchmark case: the median time per operation over several runs.
struct Timing: Sendable {
    /// Every measured run's time per operation, in seconds, sorted.
    var runs: [Double]

    /// The median run's time per operation, in seconds.
    var median: Double {
        guard !runs.isEmpty else { return .nan }
        let mid = runs.count / 2
        return runs.count % 2 == 1 ? runs[mid] : (runs[mid - 1] + runs[mid]) / 2
    }
}

/// A duration in seconds.
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Measures the peer's and our batch of the same work, alternating them run by run.
///
/// Each side first runs `warmups` batches unmeasured; then the sides take turns for `runs` rounds, so a
/// change in machine load during the measurement affects both about equally. A side that throws
/// reports its first error and stops being measured; the other side goes on. `peerOperations` and
/// `ourOperations` are the operations in one batch of each side (they differ where the peer is slow).
func measurePair(warmups: Int, runs: Int, peerOperations: Int, ourOperations: Int,
                 _ peer: () throws -> Void, _ ours: () throws -> Void)
    -> (Result<Timing, any Error>, Result<Timing, any Error>)
{
    var results: [Result<Timing, any Error>] = [.success(Timing(runs: [])), .success(Timing(runs: []))]
    let operations = [peerOperations, ourOperations]
    func body(_ side: Int) throws { side == 0 ? try peer() : try ours() }
    for side in 0..<2 {
        do { for _ in 0..<warmups { try body(side) } } catch { results[side] = .failure(error) }
    }
    let clock = ContinuousClock()
    for _ in 0..<runs {
        for side in 0..<2 {
            guard case .success(var timing) = results[side] else { continue }
            do {
                let elapsed = try clock.measure { try body(side) }
                timing.runs.append(seconds(elapsed) / Double(operations[side]))
                results[side] = .success(timing)
            } catch {
                results[side] = .failure(error)
            }
        }
    }
    return (results[0].map { Timing(runs: $0.runs.sorted()) }, results[1].map { Timing(runs: $0.runs.sorted()) })
}
