import Foundation

/// The measured runs of one side of a case: each run's duration in seconds and what the last run returned.
public struct Samples<Output> {
    /// Every measured run, in seconds, in the order measured.
    public var seconds: [Double] = []
    /// What the body returned on the last measured run (a byte count, say).
    public var last: Output?
}

/// A duration in seconds.
public func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// The median of `values` (sorted or not); NaN when there are none.
public func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/// Measures two implementations of the same work, alternating them run by run.
///
/// Each side first runs `warmups` times unmeasured; then the sides take turns for `runs` rounds, so a
/// change in machine load during the measurement affects both about equally. A side that throws
/// reports its first error and stops being measured; the other side goes on.
public func alternate<Output>(warmups: Int, runs: Int, _ first: () throws -> Output, _ second: () throws -> Output)
    -> (Result<Samples<Output>, any Error>, Result<Samples<Output>, any Error>)
{
    var results: [Result<Samples<Output>, any Error>] = [.success(Samples()), .success(Samples())]
    func body(_ side: Int) throws -> Output { side == 0 ? try first() : try second() }
    for side in 0..<2 {
        do { for _ in 0..<warmups { _ = try body(side) } } catch { results[side] = .failure(error) }
    }
    let clock = ContinuousClock()
    for _ in 0..<runs {
        for side in 0..<2 {
            guard case .success(var samples) = results[side] else { continue }
            do {
                var output: Output?
                let elapsed = try clock.measure { output = try body(side) }
                samples.seconds.append(seconds(elapsed))
                samples.last = output
                results[side] = .success(samples)
            } catch {
                results[side] = .failure(error)
            }
        }
    }
    return (results[0], results[1])
}
