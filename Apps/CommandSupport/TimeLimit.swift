/// Runs `body` until it returns or `seconds` pass, whichever comes first: `body`'s result, or `nil`
/// when the time ran out (and `body` was cancelled).
///
/// This is how a `watch` command waits: for its updates, for at most `--seconds`, and no longer than
/// its own task lives.
///
/// ```swift
/// let updates = try await withTimeLimit(seconds: 60) {
///     var count = 0
///     for await _ in changes { count += 1; if count == 3 { break } }
///     return count
/// }
/// ```
///
/// - Parameter seconds: The limit; `nil` waits as long as `body` runs.
/// - Throws: What `body` throws, and `CancellationError` when the calling task is cancelled, even if
///   `body` then returned normally (an async sequence simply ends when its task is cancelled).
public func withTimeLimit<Result: Sendable>(seconds: Double?,
                                            _ body: @escaping @Sendable () async throws -> Result) async throws -> Result? {
    let result = try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask { try await body() }
        if let seconds {
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
    try Task.checkCancellation()
    return result
}
