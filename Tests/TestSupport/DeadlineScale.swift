import Foundation

/// How much longer than usual tests may wait for other threads and processes, read once from the
/// environment variable `TOOLKIT_DEADLINE_SCALE` (a number, at least 1; default 1).
///
/// A deadline in a test bounds a wait for something that should happen soon; under ThreadSanitizer or
/// AddressSanitizer everything runs several times slower, so the same wait would fail for no fault of
/// the code (`ci/sanitize` sets the factor). Every wait helper in TestSupport (`waitUntil`,
/// `ChildProcess.waitForLine`, `waitForExit`, `waitForAll`, and through them `ProcessFaults`) stretches its
/// deadline by this factor; a test that waits through them needs nothing of its own.
///
/// ```sh
/// TOOLKIT_DEADLINE_SCALE=10 swift test --sanitize=thread --scratch-path .build-tsan
/// ```
public enum DeadlineScale {
    /// The factor: 1 unless `TOOLKIT_DEADLINE_SCALE` holds a number above 1 (a smaller or unreadable
    /// value is ignored rather than shortening waits).
    public static let factor: Double = {
        guard let text = ProcessInfo.processInfo.environment["TOOLKIT_DEADLINE_SCALE"],
              let value = Double(text), value.isFinite, value > 1 else { return 1 }
        return value
    }()

    /// `duration` stretched by the factor.
    public static func scaled(_ duration: Duration) -> Duration {
        factor == 1 ? duration : duration * factor
    }

    /// `deadline` moved so that the time left until it, counted from `now`, is stretched by the factor.
    ///
    /// For helpers that take an absolute deadline: callers compute `.now + .seconds(n)` just before
    /// the call, so stretching what is left stretches their `n`.
    public static func scaled(_ deadline: ContinuousClock.Instant, from now: ContinuousClock.Instant = .now) -> ContinuousClock.Instant {
        guard factor != 1, deadline > now else { return deadline }
        return now + (deadline - now) * factor
    }
}
