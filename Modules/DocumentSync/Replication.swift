import DocumentStore
import Foundation

/// One replication between a local store and a server (any ``ReplicationServer``): push, pull, and the
/// checkpoints of both, kept under the replication's identity.
package struct Replication {
    let sync: DocumentSync
    let server: any ReplicationServer
    package let identity: String
    var persistence: Persistence { sync.persistence }
    var configuration: DocumentSync.Configuration { sync.configuration }
    package var pushName: String { "sync-push:" + identity }
    package var pullName: String { "sync-pull:" + identity }

    package static func prepare(_ sync: DocumentSync, _ server: any ReplicationServer) throws -> Replication {
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
    ///
    /// When the server lost its copy of the checkpoint (restored from an older backup), the push starts
    /// lower than the local copy says, and sends again what the server had acknowledged, so that it
    /// gets back what it lost. Except the documents it deleted and purged since: those the local copy
    /// covers (nothing changed since), that have a purge record on the server and none of whose live
    /// leaves the server holds are removed here instead of sent, as their pull would remove them.
    func push(_ report: inout DocumentSync.Report) async throws {
        var (position, history) = try await resume(.push)
        let acknowledged = CheckpointHistory(try persistence.checkpoint(pushName)).entries.first?.position ?? 0
        while true {
            try Task.checkCancellation()
            var page = try persistence.outgoing(since: position, limit: configuration.batchSize, kinds: configuration.kinds)
            if position < acknowledged, !page.documents.isEmpty {
                page = try await withoutPurged(page, acknowledgedUpTo: acknowledged, &report)
            }
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

    /// `page` without the documents the server purged that this replica has nothing new of, which it
    /// removes locally (see ``push(_:)``).
    private func withoutPurged(_ page: OutgoingPage, acknowledgedUpTo acknowledged: Int64,
                               _ report: inout DocumentSync.Report) async throws -> OutgoingPage {
        let purged = try await server.purged(among: page.documents.map(\.identifier))
        guard !purged.isEmpty else { return page }
        let candidates = purged.sorted()
        let holds = try await server.revisions(of: candidates)
        let removed = Set(try persistence.purgeSettled(candidates, unchangedAfter: acknowledged, keepingLiveLeavesIn: holds))
        report.purgedLocally += removed.count
        return OutgoingPage(documents: page.documents.filter { !removed.contains($0.identifier) },
                            lastSequence: page.lastSequence, hasMore: page.hasMore)
    }
}
