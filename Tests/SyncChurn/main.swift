// One replica of the DocumentSync churn (Tests/DocumentSyncTests/ChurnTests.swift, ci/sync-campaign):
// edits shared ("hot") and private documents while it synchronizes at random moments, until it is
// killed. Two tasks run at once: one edits, one pushes, pulls or runs (or, with `continuous`, a
// continuous replicator runs). Its conflict resolver merges the branches (every key of every branch),
// and now and then the app saves the document while the resolver runs.
//
//   sync-churn STORE SCHEMA INDEX SEED [continuous]
//
// Every write it commits is reported as `committed <identifier> <revision> <0|1 deleted>`, after the
// commit; a synchronization that failed for a reason retrying cannot fix as `sync-error <error>`.
// The server's address comes from TOOLKIT_POSTGRES_URL; TOOLKIT_CHURN_HISTORY, when set, is the
// revision history limit of the store and of the server (so a short run passes it).
import DocumentStore
import DocumentSync
import DocumentTestModel
import Foundation
import Synchronization
import TestSupport

let arguments = CommandLine.arguments
guard arguments.count >= 5, let index = Int(arguments[3]), let seed = UInt64(arguments[4]),
      let url = ProcessInfo.processInfo.environment["TOOLKIT_POSTGRES_URL"] else {
    ProbeOutput.usage("sync-churn", "STORE SCHEMA INDEX SEED [continuous] (with TOOLKIT_POSTGRES_URL set)")
}
let continuous = arguments.count > 5 && arguments[5] == "continuous"

/// The replica's store, its random source (both tasks share it) and its edits.
final class ChurnReplica: Sendable {
    let store: Persistence
    let index: Int
    private let random: Mutex<SeededGenerator>
    private let counter = Atomic<Int>(0)

    init(store: Persistence, index: Int, seed: UInt64) {
        self.store = store
        self.index = index
        random = Mutex(SeededGenerator(seed: seed))
    }

    func roll(_ range: ClosedRange<Int>) -> Int { random.withLock { $0.int(in: range) } }

    /// Reports a committed write of `identifier` (the current revision, read in the committing transaction).
    func committed(_ identifier: String, _ write: (Persistence) throws -> Void) throws {
        let line = try store.transaction { store in
            try write(store)
            guard let current = try store.branches(of: identifier).first(where: \.isCurrent) else { return "" }
            return "committed \(identifier) \(current.revision) \(current.deleted ? 1 : 0)"
        }
        if !line.isEmpty { ProbeOutput.say(line) }
    }

    /// Edits `identifier`: makes it when it is gone, deletes it now and then, else gives it a new body.
    func edit(_ identifier: String, tag: String) throws {
        let n = counter.add(1, ordering: .relaxed).newValue
        if let item = try store.load(Item.self, identifier) {
            if roll(0...6) == 0 {
                try committed(identifier) { try $0.delete(item) }
            } else {
                var fields: [String: JSON] = [:]
                if case .object(let old) = item.body { fields = old }
                fields["by"] = .integer(Int64(index))
                fields[tag] = .integer(Int64(n))
                item.body = .object(fields)
                try committed(identifier) { try $0.save(item) }
            }
        } else {
            try committed(identifier) { try $0.save(Item(identifier: identifier, body: ["by": .integer(Int64(index)), "made": .integer(Int64(n))])) }
        }
    }

}

let historyLimit = ProcessInfo.processInfo.environment["TOOLKIT_CHURN_HISTORY"].flatMap { Int($0) }
let store: Persistence
do {
    var storeConfiguration = PersistenceConfiguration(url: URL(fileURLWithPath: arguments[1]))
    if let historyLimit { storeConfiguration.revisionHistoryLimit = historyLimit }
    store = try Persistence(configuration: storeConfiguration)
} catch {
    ProbeOutput.say("fatal \(error)")
    exit(1)
}
store.register(persistableKind: Item.self)
let replica = ChurnReplica(store: store, index: index, seed: seed)

guard let address = try? PostgresAddress(url: url) else { ProbeOutput.usage("sync-churn", "TOOLKIT_POSTGRES_URL is not a postgres:// address") }
var configuration = DocumentSync.Configuration(address: address, schema: arguments[2])
configuration.batchSize = 25
if let historyLimit { configuration.revisionHistoryLimit = historyLimit }
configuration.connectTimeout = .seconds(60)
configuration.tombstoneRetention = .seconds(3)
configuration.pollInterval = .milliseconds(50)
configuration.maximumInterval = .seconds(2)
configuration.initialBackoff = .milliseconds(50)
configuration.maximumBackoff = .milliseconds(500)
configuration.conflictResolver = { [replica] conflict in
    if replica.roll(0...2) == 0 {
        // The app saves the conflicted document while the resolver works on it.
        do { try replica.edit(conflict.identifier, tag: "during-resolve") } catch {
            if case .conflict? = error as? DocumentStoreError {} else { ProbeOutput.say("edit-error \(error)") }
        }
    }
    return .merge(BranchUnion.merge(current: conflict.current, others: conflict.others))
}
guard let sync = try? DocumentSync(persistence: store, configuration: configuration) else {
    ProbeOutput.usage("sync-churn", "\(arguments[2]) is not a valid schema name")
}
ProbeOutput.say("ready \(getpid())")

let editor = Task { [replica] in
    while true {
        let identifier = replica.roll(0...9) < 6 ? "hot-\(replica.roll(0...11))" : "p\(replica.index)-\(replica.roll(0...29))"
        do {
            try replica.edit(identifier, tag: "edit")
        } catch {
            // Another replica's revision arrived since the object was loaded: refresh and go on.
            if case .conflict? = error as? DocumentStoreError {
                if let item = try? replica.store.load(Item.self, identifier) { _ = try? replica.store.refresh(item) }
            } else if case .busyTimeout? = error as? DocumentStoreError {
            } else {
                ProbeOutput.say("edit-error \(error)")
            }
        }
        try? await Task.sleep(for: .milliseconds(replica.roll(0...40)))
    }
}

if continuous {
    for await status in sync.start() {
        if case .error(let error, _) = status { ProbeOutput.say("sync-error \(error)") }
        if case .idle(let report) = status { ProbeOutput.say("synced \(report)") }
    }
} else {
    while true {
        do {
            switch replica.roll(0...9) {
            case 0...4: ProbeOutput.say("synced \(try await sync.run())")
            case 5...6: ProbeOutput.say("pushed \(try await sync.push())")
            default: ProbeOutput.say("pulled \(try await sync.pull())")
            }
        } catch {
            if !error.isTransient { ProbeOutput.say("sync-error \(error)") }
        }
        try? await Task.sleep(for: .milliseconds(replica.roll(0...300)))
    }
}
