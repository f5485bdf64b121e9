import DocumentStore
import Foundation

extension Replication {
    /// Fetches the server's feed after the pull checkpoint, batch by batch, and inserts the revisions
    /// this store lacks as they are; each batch and the local checkpoint commit in one local transaction.
    /// Starts over from zero when the server purged tombstones past the checkpoint, and then purges the
    /// local documents the server no longer has (unless they hold changes not pushed yet).
    ///
    /// With access control on, it also starts over when the replica's readable channels changed since
    /// its last pull (a grant added or revoked): what it may now read is pulled whatever its position,
    /// and its copies of documents it may no longer read are removed (unless they hold changes not
    /// pushed yet, which a push then reports refused). A document that left the replica's channels
    /// because its body changed comes as a removal record in the feed, removed the same way.
    func pull(_ report: inout DocumentSync.Report) async throws {
        var (position, history) = try await resume(.pull)
        let horizon = try await server.purgeHorizon()
        let epoch = try await server.accessEpoch()
        let epochName = "sync-access:" + identity
        let accessChanged = try epoch.map { try persistence.checkpoint(epochName) != $0 } ?? false
        // Set by `DocumentSync.discardLocalChanges(of:)`: the discarded documents come back from the start.
        let restart = try persistence.checkpoint(restartName) == "1"
        let full = position > 0 && (position < horizon || accessChanged || restart)
        if full {
            position = 0
            report.fullResync = true
        }
        var onServer = Set<String>()
        while true {
            try Task.checkCancellation()
            let page = try await server.feedPage(after: position, limit: configuration.batchSize, kinds: configuration.kinds)
            let (rows, purges) = (page.rows, page.purges)
            let pageIsFull = Set(rows.map(\.sequence)).count >= configuration.batchSize
            let last = max(rows.last?.sequence ?? 0, purges.last?.sequence ?? 0)
            guard last > position else { break }
            // Settled before the push checkpoint: pushed, or from the server (read before the transaction);
            // and what the server holds now of the purged documents (made again since, or not).
            let purged = purges.map(\.identifier)
            let settled = purged.isEmpty ? 0 : try await resume(.push).position
            let current = purged.isEmpty ? [] : try await server.revisions(of: purged)
            if full { for row in rows { onServer.insert(row.identifier) } }
            let known = try persistence.knownRevisions(rows.map { ($0.identifier, $0.revision) })
            // A purged document's copy may be removed before the page's revisions go in: send them all.
            let purgedHere = Set(purged)
            var revisions: [ForeignRevision] = []
            var conflicted = Set<String>()
            var leavesByDocument: [String: Int] = [:]
            for row in rows {
                leavesByDocument[row.identifier, default: 0] += row.deleted ? 0 : 1
                if leavesByDocument[row.identifier]! > 1 { conflicted.insert(row.identifier) }
                guard !known.contains(row.identifier + "\u{0}" + row.revision) || purgedHere.contains(row.identifier) else { continue }
                revisions.append(try row.verified())
            }
            let next = history.adding(last)
            let (inserted, removed, pushed) = try apply(revisions, purging: purged, settledUpTo: settled,
                                                        serverHolds: current, pull: next)
            report.pulledRevisions += inserted
            report.purgedLocally += removed
            try await server.setCheckpoint(next, .pull, of: identity, waitForDisk: false)
            if let pushed { try await server.setCheckpoint(pushed, .push, of: identity, waitForDisk: true) }
            if let resolver = configuration.conflictResolver {
                report.resolvedConflicts += try resolve(conflicted.sorted(), with: resolver)
            }
            position = last
            history = next
            if !pageIsFull { break }
        }
        if full { report.purgedLocally += try await purgeAbsent(onServer) }
        if let epoch, accessChanged { try persistence.setCheckpoint(epoch, for: epochName) }
        if restart { try persistence.setCheckpoint("", for: restartName) }
    }

    /// The local flag that makes the next pull start over (see ``DocumentSync/discardLocalChanges(of:)``).
    var restartName: String { "sync-restart:" + identity }

    /// Removes the local copies of `identifiers` (changes not pushed included) and makes the next pull
    /// start over, so the server's version of each, where this replica may read it, comes back.
    func discard(_ identifiers: [String]) throws {
        try persistence.setCheckpoint("1", for: restartName)
        try persistence.purge(identifiers)
    }

    /// Applies a page in one local transaction: removes the local copies of the documents the page's
    /// purge records name, inserts the page's revisions, and sets the pull checkpoint; returns how many
    /// revisions it inserted and documents it removed, and the push history to copy to the server.
    ///
    /// A purged document's local copy is removed when nothing of it changed after `settled` (the push
    /// checkpoint), so everything the replica has of it was on the server, and none of its live leaves
    /// is in the server's tree now (`serverHolds`): a live leaf this replica pulled before another
    /// replica's deletion reached it is stale, and would otherwise stay beside the document's next
    /// incarnation for good. A copy changed after the checkpoint stays and goes up with the next push; so
    /// does one whose live leaf the server holds again (this replica pushed it after the purge).
    ///
    /// When every earlier local change was already pushed, the push checkpoint moves past the page's
    /// feed entries too (in the same transaction), so revisions that came from the server are not
    /// offered back to it; the returned push history is then written to the server's copy.
    private func apply(_ revisions: [ForeignRevision], purging purged: [String], settledUpTo settled: Int64,
                       serverHolds: Set<String>, pull next: CheckpointHistory) throws -> (inserted: Int, purged: Int, pushed: CheckpointHistory?) {
        let pushHistory = CheckpointHistory(try persistence.checkpoint(pushName))
        return try persistence.transaction { store in
            let before = try store.lastSequence()
            let removed = try store.purgeSettled(purged, unchangedAfter: settled, keepingLiveLeavesIn: serverHolds).count
            var inserted = 0
            for revision in revisions where try store.insertForeign(revision) { inserted += 1 }
            try store.setCheckpoint(next.description, for: pullName)
            guard inserted > 0, pushHistory.entries.first?.position == before else { return (inserted, removed, nil) }
            let pushed = pushHistory.adding(try store.lastSequence())
            try store.setCheckpoint(pushed.description, for: pushName)
            return (inserted, removed, pushed)
        }
    }

    /// Asks the resolver about each conflicted document and applies its answer; returns how many it ended.
    ///
    /// The answer is written only if the document's leaves are still the ones the resolver saw: when a
    /// save (or another pull) committed meanwhile, the branches are read again and the resolver asked
    /// again, so the merge never overwrites a revision it did not see.
    private func resolve(_ identifiers: [String], with resolver: @Sendable (DocumentSync.Conflict) -> DocumentSync.Resolution) throws -> Int {
        var resolved = 0
        for identifier in identifiers {
            for _ in 0..<Self.resolveAttempts {
                let branches = try persistence.branches(of: identifier)
                let live = branches.filter { !$0.deleted }
                guard live.count > 1, let current = live.first(where: \.isCurrent), let body = current.body,
                      let kind = try persistence.snapshot(identifier)?.kind else { break }
                let conflict = DocumentSync.Conflict(identifier: identifier, kind: kind, current: body,
                                                     others: live.filter { !$0.isCurrent }.compactMap(\.body))
                let answer = resolver(conflict)
                if case .keepBranches = answer { break }
                let merged: JSON? = switch answer {
                case .keepCurrent: body
                case .merge(let value): value
                case .delete, .keepBranches: JSON?.none
                }
                let seen = Set(branches.map(\.revision))
                if try persistence.resolveConflict(identifier, merged: merged, expectedLeaves: seen) != nil {
                    resolved += 1
                    break
                }
            }
        }
        return resolved
    }

    /// How many times a conflict is read and resolved again when saves keep changing it meanwhile (the
    /// next pull tries again after that).
    static let resolveAttempts = 5

    /// After a full resynchronization: purges the local documents (of the replicated kinds) the server no
    /// longer has, except those changed after the push checkpoint (they are new here and go up next time).
    private func purgeAbsent(_ onServer: Set<String>) async throws -> Int {
        let pushed = try await resume(.push).position
        let gone = try persistence.allIdentifiers().filter { document in
            !onServer.contains(document.identifier) && document.lastSequence <= pushed
                && (configuration.kinds?.contains(document.kind) ?? true)
        }.map(\.identifier)
        if !gone.isEmpty { try persistence.purge(gone) }
        return gone.count
    }

    /// Deletes from the server the documents whose winner is a deletion older than the retention, and
    /// moves the purge horizon (see ``ReplicationServer/purgeTombstones(olderThan:)``).
    func purgeServerTombstones() async throws {
        guard let retention = configuration.tombstoneRetention else { return }
        try await server.purgeTombstones(olderThan: retention)
    }
}
