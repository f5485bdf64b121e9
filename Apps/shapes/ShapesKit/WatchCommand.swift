import ArgumentParser
import DocumentStore
import Foundation

extension ShapesCommand {
    /// `shapes watch`: a live query printing its results each time another process changes them.
    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the results now, then again each time a save (in any process) changes them.")

        @OptionGroup var query: QueryOptions
        @Option(help: "Stop after this many updates.") var count: Int?
        @Option(help: "Stop after this many seconds.") var seconds: Double = 60
        @OptionGroup var store: StoreOption

        func run() throws {
            let persistence = try store.open()
            let stream = query.observe(persistence)
            let limit = count
            let done = DispatchSemaphore(value: 0)
            final class Outcome: @unchecked Sendable { var error: (any Error)? }
            let outcome = Outcome()
            // Detached: this thread waits on the semaphore below.
            let task = Task.detached {
                var updates = -1
                do {
                    for try await results in stream {
                        updates += 1
                        print(updates == 0 ? "watching: \(results.count) documents" : "update \(updates): \(results.count) documents")
                        for snapshot in results { print("  " + line(snapshot)) }
                        fflush(nil)
                        if let limit, updates >= limit { break }
                    }
                } catch {
                    outcome.error = error
                }
                done.signal()
            }
            if done.wait(timeout: .now() + seconds) == .timedOut { task.cancel() }
            if let error = outcome.error { throw failure("\(error)") }
        }
    }
}
