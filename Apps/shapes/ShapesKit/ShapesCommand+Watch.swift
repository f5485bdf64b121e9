import ArgumentParser
import CommandSupport
import DocumentStore
import Foundation
import Synchronization

extension ShapesCommand {
    /// `shapes watch`: a live query that prints its results now and again whenever a commit, in this
    /// or any other process, changes them.
    ///
    /// Output: `watching: N documents` and one indented line per document, then `update K: N documents`
    /// and the lines again for each change. It stops after `--count` updates or `--seconds`, whichever
    /// comes first (then printing `stopped after T s with K updates`); both end with status 0.
    /// Cancelling the task that runs it ends it at once (`CancellationError`).
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

        func run(in persistence: Persistence, _ streams: CommandStreams) async throws {
            let stream = try query.observe(in: persistence)
            let limit = count
            let progress = WatchProgress()
            let finished = try await withTimeLimit(seconds: seconds) {
                for try await results in stream {
                    let updates = progress.recordResults()
                    streams.print(updates == 0 ? "watching: \(results.count) documents" : "update \(updates): \(results.count) documents")
                    for snapshot in results { streams.print("  " + DocumentText.line(snapshot)) }
                    if let limit, updates >= limit { break }
                }
                return true
            }
            if finished == nil {
                streams.print("stopped after \(DocumentText.number(seconds)) s with \(max(0, progress.updates)) updates")
            }
        }
    }
}

/// How far a watch got: written by the task that reads the live query, read once it stopped.
final class WatchProgress: Sendable {
    private let results = Mutex(0)

    /// Counts one result and returns the update's number (0 for the first result).
    func recordResults() -> Int {
        results.withLock { count in
            count += 1
            return count - 1
        }
    }

    /// The updates after the first result.
    var updates: Int { results.withLock { $0 - 1 } }
}
