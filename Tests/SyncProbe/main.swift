// A replicator the DocumentSync tests start and kill: synchronizes one store with the server over and
// over, printing each report, until it is killed. After each synchronization that returned it prints
// `acked documents N`, N the store's documents of kind Item: all of them are durable then (the store
// is at `.full`), which is what the power-cut test checks.
//
//   sync-probe STORE SCHEMA BATCH
//
// The server's address comes from TOOLKIT_POSTGRES_URL (never from the command line).
import DocumentStore
import DocumentSync
import DocumentTestModel
import Foundation
import TestSupport

let arguments = CommandLine.arguments
guard arguments.count == 4, let batch = Int(arguments[3]),
      let url = ProcessInfo.processInfo.environment["TOOLKIT_POSTGRES_URL"] else {
    FileHandle.standardError.write(Data("usage: TOOLKIT_POSTGRES_URL=... sync-probe STORE SCHEMA BATCH\n".utf8))
    exit(2)
}
do {
    let persistence = try Persistence(configuration: PersistenceConfiguration(url: URL(fileURLWithPath: arguments[1])))
    persistence.register(persistableKind: Item.self)
    var configuration = DocumentSync.Configuration(address: try PostgresAddress(url: url), schema: arguments[2])
    configuration.batchSize = batch
    // The tests run hundreds of things at once on two cores: give a connection time, and go on after
    // a transient failure, as a continuous replicator would.
    configuration.connectTimeout = .seconds(60)
    let sync = try DocumentSync(persistence: persistence, configuration: configuration)
    ProbeOutput.say("ready \(getpid())")
    while true {
        do {
            let report = try await sync.run()
            ProbeOutput.say("synced \(report)")
            if let count = try? persistence.query(Item.self).count() { ProbeOutput.say("acked documents \(count)") }
        } catch {
            // (No pattern in the catch clause: one over a typed throw crashes Swift 6.3.1's compiler.)
            guard error.isTransient else { throw error }
            ProbeOutput.say("retrying after: \(error)")
            try await Task.sleep(for: .milliseconds(100))
        }
    }
} catch {
    FileHandle.standardError.write(Data("sync-probe: \(error)\n".utf8))
    exit(1)
}
