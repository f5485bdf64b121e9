import DocumentStore

extension InMemoryReplicationServer.State {
    /// `PostgresReplicationServer.feedPage(after:limit:kinds:)`: the next `limit` documents after
    /// `position` (of `kinds`) joined to their leaves, by feed position then revision; the purge records
    /// after `position`, up to the last document's position when the page is full.
    func feedPage(after position: Int64, limit: Int, kinds: Set<String>?) -> FeedPage {
        let page = documents.filter { $0.value.sequence > position && (kinds?.contains($0.value.kind) ?? true) }
            .sorted { $0.value.sequence < $1.value.sequence }
            .prefix(max(0, limit))
        var rows: [FeedPage.Row] = []
        for (identifier, document) in page {
            let leaves = (revisions[identifier] ?? [:]).filter(\.value.leaf).sorted { byteOrder($0.key, $1.key) }
            for (revision, node) in leaves {
                rows.append(FeedPage.Row(sequence: document.sequence, identifier: identifier, kind: document.kind, revision: revision,
                                         deleted: node.deleted, body: node.body, ancestors: node.ancestors ?? []))
            }
        }
        let full = Set(rows.map(\.sequence)).count >= limit
        let upper: Int64? = full ? rows.last?.sequence : nil
        let records = purges.filter { purge in
            purge.sequence > position && (upper.map { purge.sequence <= $0 } ?? true) && (kinds?.contains(purge.kind) ?? true)
        }
        return FeedPage(rows: rows, purges: records.map { FeedPage.Purge(sequence: $0.sequence, identifier: $0.identifier) })
    }

    /// `PostgresReplicationServer.purgeTombstones(olderThan:)`: the first 10,000 documents (by
    /// identifier) whose winner is a deletion changed before `now - retention` and that have no live
    /// leaf leave with their trees; each gets a purge record (positions from the counter, by identifier),
    /// and the horizon moves to the greatest feed position they held.
    mutating func purgeTombstones(olderThan retention: Duration, now: ContinuousClock.Instant) {
        let cutoff = now - retention
        let gone = documents.filter { $0.value.deleted && $0.value.changedAt < cutoff }
            .sorted { byteOrder($0.key, $1.key) }
            .prefix(10_000)
            .filter { identifier, _ in !(revisions[identifier] ?? [:]).values.contains { $0.leaf && !$0.deleted } }
        guard !gone.isEmpty else { return }
        for (identifier, _) in gone {
            documents[identifier] = nil
            revisions[identifier] = nil
        }
        feed += Int64(gone.count)
        let first = feed - Int64(gone.count)
        for (index, (identifier, document)) in gone.enumerated() {
            purges.append(Purge(sequence: first + Int64(index) + 1, identifier: identifier, kind: document.kind))
        }
        purgeHorizon = max(purgeHorizon, gone.map(\.value.sequence).max() ?? 0)
    }
}
