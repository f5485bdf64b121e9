import ArgumentParser
import DocumentStore
import DocumentSync
import Foundation

extension ShapesCommand {
    /// `shapes sync --postgres URL [--continuous]`: replicates the store through a PostgreSQL server, so
    /// several `shapes` folders (on one machine or many) end with the same documents.
    ///
    /// The password never goes on the command line (where `ps` shows it): it comes from `PGPASSWORD`
    /// or `~/.pgpass`, as for `psql`. One-shot prints what it did; `--continuous` prints each status
    /// change until `--seconds` pass (or forever without it).
    struct Sync: StoreCommand {
        static let configuration = CommandConfiguration(
            abstract: "Push local changes to a PostgreSQL server and pull everyone else's (DocumentSync).",
            discussion: "The password comes from PGPASSWORD or ~/.pgpass, never from the command line.")

        @Option(help: ArgumentHelp("The server, as postgres://user@host[:port]/database[?sslmode=require].", valueName: "url"))
        var postgres: String?
        @Option(help: "The schema on the server that holds the documents.") var schema = "shapes_sync"
        @Flag(help: "Keep synchronizing, printing each status change.") var continuous = false
        @Option(help: "With --continuous: stop after this many seconds.") var seconds: Double?
        @Flag(help: "Print the SQL that creates the server schema (for a DBA) and exit.") var printSchema = false
        @OptionGroup var store: StoreOption

        func validate() throws {
            if !printSchema, postgres == nil { throw ValidationError("--postgres URL is required") }
            if let postgres, let components = URLComponents(string: postgres), components.password != nil {
                throw ValidationError("put the password in PGPASSWORD or ~/.pgpass, not in the URL (ps shows command lines)")
            }
            if let seconds, !(seconds.isFinite && seconds > 0) { throw ValidationError("--seconds must be a positive number") }
        }

        func run() throws {
            if printSchema {
                do { print(try DocumentSync.schemaScript(schema: schema), terminator: "") } catch { throw failure("\(error)") }
                return
            }
            do {
                try run(in: try ShapesStore.open(folder: store.url))
            } catch let error as DocumentStoreError {
                throw failure("\(error)")
            } catch let error as DocumentSyncError {
                throw failure("\(error)")
            }
        }

        func run(in persistence: Persistence) throws {
            let address = try PostgresAddress(url: postgres ?? "")
            let sync = try DocumentSync(persistence: persistence, configuration: .init(address: address, schema: schema))
            let outcome = SyncOutcome()
            let finished = DispatchSemaphore(value: 0)
            let continuous = continuous
            // Detached, on the cooperative pool: this thread only waits (the command's `run` is synchronous).
            let task = Task.detached {
                defer { finished.signal() }
                if continuous {
                    for await status in sync.start() {
                        print("\(address): \(status)")
                        fflush(nil)
                    }
                } else {
                    do {
                        let report = try await sync.run()
                        print("synced with \(address): \(report)")
                    } catch {
                        outcome.fail(error)
                    }
                }
            }
            let deadline: DispatchTime = seconds.map { .now() + $0 } ?? .distantFuture
            if finished.wait(timeout: deadline) == .timedOut {
                let stopped = DispatchSemaphore(value: 0)
                Task.detached {
                    await sync.stop()
                    stopped.signal()
                }
                stopped.wait()
                task.cancel()
                finished.wait()
            }
            if let error = outcome.error { throw error }
        }
    }
}

/// Why a one-shot sync failed, written by its task and read by the waiting thread.
final class SyncOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var failure: (any Error)?
    func fail(_ error: any Error) { lock.withLock { failure = error } }
    var error: (any Error)? { lock.withLock { failure } }
}
