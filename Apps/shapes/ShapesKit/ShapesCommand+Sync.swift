import ArgumentParser
import CommandSupport
import DocumentStore
import DocumentSync
import Foundation

extension ShapesCommand {
    /// `shapes sync --postgres URL [--continuous]`: replicates the store through a PostgreSQL server, so
    /// several `shapes` folders (on one machine or many) end with the same documents.
    ///
    /// The password never goes on the command line (where `ps` shows it): it comes from `PGPASSWORD`
    /// or `~/.pgpass`, as for `psql`. One-shot prints what it did; `--continuous` prints each status
    /// change until `--seconds` pass (or forever without it, or until the task running it is cancelled).
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
        @Option(help: ArgumentHelp("Print the SQL that creates a login role allowed to replicate through the schema (for a DBA) and exit.",
                                   valueName: "name"))
        var printUser: String?
        @Flag(help: "Print the SQL that turns on access control (channels from each shape's owner and channels fields) and exit.")
        var printAccess = false
        @OptionGroup var store: StoreOption

        func validate() throws {
            if !printSchema, !printAccess, printUser == nil, postgres == nil { throw ValidationError("--postgres URL is required") }
            if let postgres, let components = URLComponents(string: postgres), components.password != nil {
                throw ValidationError("put the password in PGPASSWORD or ~/.pgpass, not in the URL (ps shows command lines)")
            }
            if let seconds, !(seconds.isFinite && seconds > 0) { throw ValidationError("--seconds must be a positive number") }
        }

        func run(_ streams: CommandStreams) async throws {
            if printSchema {
                do { streams.print(try DocumentSync.schemaScript(schema: schema), terminator: "") } catch { throw CommandFailure("\(error)") }
                return
            }
            if printAccess {
                do { streams.print(try DocumentSync.accessScript(schema: schema), terminator: "") } catch { throw CommandFailure("\(error)") }
                return
            }
            if let printUser {
                do { streams.print(try DocumentSync.userScript(user: printUser, schema: schema), terminator: "") } catch { throw CommandFailure("\(error)") }
                return
            }
            do {
                try await reportingStoreErrors {
                    try await run(in: try ShapesStore.open(folder: store.url) { streams.printError("shapes: " + $0) }, streams)
                }
            } catch let error as DocumentSyncError {
                throw CommandFailure("\(error)")
            }
        }

        func run(in persistence: Persistence, _ streams: CommandStreams) async throws {
            let address = try PostgresAddress(url: postgres ?? "")
            let sync = try DocumentSync(persistence: persistence, configuration: .init(address: address, schema: schema))
            guard continuous else {
                let report = try await sync.run()
                streams.print("synced with \(address): \(report)")
                return
            }
            let statuses = sync.start()
            do {
                _ = try await withTimeLimit(seconds: seconds) {
                    for await status in statuses { streams.print("\(address): \(status)") }
                    return true
                }
            } catch {
                await sync.stop()
                throw error
            }
            await sync.stop()
        }
    }
}
