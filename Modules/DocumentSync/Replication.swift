import DocumentStore
import Foundation

/// One replication between a local store and a server (any ``ReplicationServer``): push, pull, and the
/// checkpoints of both, kept under the replication's identity.
struct Replication {
    let sync: DocumentSync
    let server: any ReplicationServer
    let identity: String
    var persistence: Persistence { sync.persistence }
    var configuration: DocumentSync.Configuration { sync.configuration }
    var pushName: String { "sync-push:" + identity }
    var pullName: String { "sync-pull:" + identity }

    static func prepare(_ sync: DocumentSync, _ server: any ReplicationServer) throws -> Replication {
        let replica = try sync.persistence.replicaIdentifier()
        let identity = ReplicationIdentity.make(replica: replica, server: server.serverIdentifier, schema: sync.configuration.schema,
                                                kinds: sync.configuration.kinds)
        return Replication(sync: sync, server: server, identity: identity)
    }

    /// The local name of a direction's checkpoint.
    func localName(_ direction: ReplicationDirection) -> String {
        direction == .push ? pushName : pullName
    }

    /// Where a direction resumes: the newest checkpoint both copies share, and the local history from there.
    func resume(_ direction: ReplicationDirection) async throws -> (position: Int64, matched: CheckpointHistory) {
        CheckpointHistory.resume(local: CheckpointHistory(try persistence.checkpoint(localName(direction))),
                                 remote: try await server.checkpoint(direction, of: identity))
    }

    // MARK: Push

    /// Sends the local changes after the push checkpoint, one server transaction per batch; the server's
    /// copy of the checkpoint commits with the batch, the local copy right after.
    func push(_ report: inout DocumentSync.Report) async throws {
        var (position, history) = try await resume(.push)
        while true {
            try Task.checkCancellation()
            let page = try persistence.outgoing(since: position, limit: configuration.batchSize, kinds: configuration.kinds)
            guard page.lastSequence > position else {
                // A first checkpoint even with nothing to send, so a pull can move it past what it inserts.
                if history.entries.isEmpty {
                    let first = history.adding(position)
                    try await server.setCheckpoint(first, .push, of: identity, waitForDisk: true)
                    try persistence.setCheckpoint(first.description, for: pushName)
                }
                return
            }
            let next = history.adding(page.lastSequence)
            let sent = try await server.push(page.documents, checkpoint: next, of: identity,
                                             historyLimit: configuration.revisionHistoryLimit)
            try persistence.setCheckpoint(next.description, for: pushName)
            report.pushedDocuments += sent.documents
            report.pushedRevisions += sent.revisions
            position = page.lastSequence
            history = next
            if !page.hasMore { return }
        }
    }
}
