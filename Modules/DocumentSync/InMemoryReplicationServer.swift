import DocumentStore
import Foundation
import Synchronization

/// A ``ReplicationServer`` in memory, with the rules of ``PostgresReplicationServer``: the tests'
/// twin, so replication's logic runs without a PostgreSQL server and one test can run against both.
///
/// It keeps what the PostgreSQL schema keeps (``ServerSchema``): each document's winner and feed
/// position, the revision trees (leaves with their body and ancestry, inner nodes with neither), one
/// feed counter, each replication's checkpoints, the purge records and the purge horizon; and it
/// changes them the way the SQL does, step for step (``InMemoryReplicationServer/State``), in the same
/// orders (identifiers and revisions in byte order, as PostgreSQL's `COLLATE "C"` compares them).
///
/// ```swift
/// let server = InMemoryReplicationServer()
/// let a = try DocumentSync(persistence: storeA, configuration: configuration, server: server)
/// let b = try DocumentSync(persistence: storeB, configuration: configuration, server: server)
/// try await a.run(); try await b.run()
/// ```
///
/// Concurrency: every operation runs whole under one `Mutex`, so any number of replicas may share an
/// instance from any tasks, and each operation sees every earlier one's whole result (what the
/// PostgreSQL server gets from its document locks and the counter row). What it does not model:
/// durability (nothing survives the process; `waitForDisk` changes nothing), `LISTEN`/`NOTIFY`, the
/// schema's versions and the `meta` rows other than the ones replication reads.
package final class InMemoryReplicationServer: ReplicationServer {
    package let serverIdentifier: String
    private let state = Mutex(State())

    /// An empty server; `identifier` is its identity (a fresh UUID unless given).
    package init(identifier: String = UUID().uuidString.lowercased()) {
        serverIdentifier = identifier
    }

    package func checkpoint(_ direction: ReplicationDirection, of replication: String) -> CheckpointHistory {
        state.withLock { state in CheckpointHistory(state.checkpoints[replication]?[direction]) }
    }

    package func setCheckpoint(_ history: CheckpointHistory, _ direction: ReplicationDirection, of replication: String,
                               waitForDisk: Bool) {
        state.withLock { state in state.setCheckpoint(history, direction, of: replication) }
    }

    package func push(_ documents: [OutgoingDocument], checkpoint: CheckpointHistory, of replication: String,
                      historyLimit: Int) -> (documents: Int, revisions: Int) {
        let now = ContinuousClock.now
        return state.withLock { state in
            var sent = (documents: 0, revisions: 0)
            if !documents.isEmpty {
                let missing = MissingLeaves(documents, server: state.nodes(of: documents.map(\.identifier)), historyLimit: historyLimit)
                if !missing.documents.isEmpty {
                    sent = (state.insert(missing, historyLimit: historyLimit, at: now), missing.revisions)
                }
            }
            state.setCheckpoint(checkpoint, .push, of: replication)
            return sent
        }
    }

    package func insert(_ leaves: MissingLeaves, historyLimit: Int) -> Int {
        let now = ContinuousClock.now
        return state.withLock { state in state.insert(leaves, historyLimit: historyLimit, at: now) }
    }

    package func purgeHorizon() -> Int64 {
        state.withLock { $0.purgeHorizon }
    }

    package func purged(among identifiers: [String]) -> Set<String> {
        let wanted = Set(identifiers)
        return state.withLock { state in Set(state.purges.map(\.identifier).filter(wanted.contains)) }
    }

    package func revisions(of identifiers: [String]) -> Set<String> {
        state.withLock { state in Set(state.nodes(of: identifiers).map { $0.document + "\u{0}" + $0.revision }) }
    }

    package func feedPage(after position: Int64, limit: Int, kinds: Set<String>?) -> FeedPage {
        state.withLock { state in state.feedPage(after: position, limit: limit, kinds: kinds) }
    }

    package func purgeTombstones(olderThan retention: Duration) {
        let now = ContinuousClock.now
        state.withLock { state in state.purgeTombstones(olderThan: retention, now: now) }
    }

    // MARK: For tests

    /// Everything the server holds, as of one moment: what a test compares before and after.
    package var contents: State {
        state.withLock { $0 }
    }

    /// Removes the checkpoints of every replication `remove` names (a server that lost rows).
    package func removeCheckpoints(where remove: (String) -> Bool) {
        state.withLock { state in state.checkpoints = state.checkpoints.filter { !remove($0.key) } }
    }
}
