import Foundation

/// The timing of one benchmark case: the median of several runs after a warm-up.
struct Timing: Sendable {
    /// Every measured run, in seconds, sorted.
    var runs: [Double]
    /// Bytes processed per run (the size of the property list written or read).
    var bytes: Int

    /// The median run, in seconds.
    var median: Double {
        guard !runs.isEmpty else { return .nan }
        let mid = runs.count / 2
        return runs.count % 2 == 1 ? runs[mid] : (runs[mid - 1] + runs[mid]) / 2
    }

    /// The median in milliseconds.
    var milliseconds: Double { median * 1000 }

    /// Throughput at the median, in megabytes (10^6 bytes) per second.
    var megabytesPerSecond: Double { Double(bytes) / median / 1_000_000 }
}

/// Times one run of `body`, which returns the byte count; returns seconds and bytes.
private func timeOnce(_ body: () throws -> Int) throws -> (seconds: Double, bytes: Int) {
    var produced = 0
    let elapsed = try ContinuousClock().measure { produced = try body() }
    let parts = elapsed.components
    return (Double(parts.seconds) + Double(parts.attoseconds) / 1e18, produced)
}

/// Measures two implementations of the same work, alternating them run by run.
///
/// Each side first runs `warmups` times unmeasured; then the sides take turns for `runs` rounds, so a
/// change in machine load during the measurement affects both about equally. A side that throws
/// reports its first error and stops being measured; the other side goes on.
func measurePair(warmups: Int, runs: Int, _ first: () throws -> Int, _ second: () throws -> Int)
    -> (Result<Timing, any Error>, Result<Timing, any Error>)
{
    let empty = Timing(runs: [], bytes: 0)
    var results: [Result<Timing, any Error>] = [.success(empty), .success(empty)]
    func body(_ side: Int) throws -> Int { side == 0 ? try first() : try second() }
    for side in 0..<2 {
        do { for _ in 0..<warmups { _ = try body(side) } } catch { results[side] = .failure(error) }
    }
    for _ in 0..<runs {
        for side in 0..<2 {
            guard case .success(var timing) = results[side] else { continue }
            do {
                let run = try timeOnce { try body(side) }
                timing.runs.append(run.seconds)
                timing.bytes = run.bytes
                results[side] = .success(timing)
            } catch {
                results[side] = .failure(error)
            }
        }
    }
    return (results[0].map { Timing(runs: $0.runs.sorted(), bytes: $0.bytes) },
            results[1].map { Timing(runs: $0.runs.sorted(), bytes: $0.bytes) })
}
