import ArgumentParser
import DocumentStore
import Foundation

extension ShapesCommand {
    /// `shapes watch`: a live query that prints its results now and again whenever a commit, in this
    /// or any other process, changes them.
    ///
    /// Output: `watching: N documents` and one indented line per document, then `update K: N documents`
    /// and the lines again for each change. It stops after `--count` updates or `--seconds`, whichever
    /// comes first (then printing `stopped after T s with K updates`); both end with status 0.
    struct Watch: StoreCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the results now, then again each time a save (in any process) changes them.")

        @OptionGroup var query: QueryOptions
        @Option(help: "Stop after this many updates.") var count: Int?
        @Option(help: "Stop after this many seconds.") var seconds: Double = 60
        @OptionGroup var store: StoreOption

        func validate() throws {
            if let count, count < 0 { throw ValidationError("--count cannot be negative") }
            guard seconds.isFinite, seconds > 0 else { throw ValidationError("--seconds must be a positive number") }
        }

        func run(in persistence: Persistence) throws {
            let stream = try query.observe(in: persistence)
            let limit = count
            let progress = WatchProgress()
            let finished = DispatchSemaphore(value: 0)
            // Detached, on the cooperative pool: this thread only waits (the command's `run` is synchronous).
            let task = Task.detached {
                defer { finished.signal() }
                do {
                    for try await results in stream {
                        let updates = progress.recordResults()
                        print(updates == 0 ? "watching: \(results.count) documents" : "update \(updates): \(results.count) documents")
                        for snapshot in results { print("  " + DocumentText.line(snapshot)) }
                        fflush(nil)   // a pipe or file is block-buffered; the reader waits for each block
                        if let limit, updates >= limit { return }
                    }
                } catch {
                    progress.fail(error)
                }
            }
            if finished.wait(timeout: .now() + seconds) == .timedOut {
                task.cancel()   // ends the stream's iteration; the query stops observing
                _ = finished.wait(timeout: .now() + 5)
                print("stopped after \(DocumentText.number(seconds)) s with \(max(0, progress.updates)) updates")
            }
            if let error = progress.error { throw error }
        }
    }
}

/// How far a watch got, written by its task and read by the waiting thread.
final class WatchProgress: @unchecked Sendable {
    private let lock = NSLock()
    private var results = 0
    private var failure: (any Error)?

    /// Counts one result and returns the update's number (0 for the first result).
    func recordResults() -> Int {
        lock.withLock {
            results += 1
            return results - 1
        }
    }

    /// The updates after the first result.
    var updates: Int { lock.withLock { results - 1 } }

    /// Records why the stream ended early.
    func fail(_ error: any Error) { lock.withLock { failure = error } }

    /// Why the stream ended early, if it did.
    var error: (any Error)? { lock.withLock { failure } }
}
