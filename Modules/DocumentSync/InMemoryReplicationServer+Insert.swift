import DocumentStore

extension InMemoryReplicationServer.State {
    /// `PostgresReplicationServer.insertLeaves(_:historyLimit:)`, statement by statement: the inner
    /// nodes, the leaves (a leaf the tree has already, as leaf or inner node, is skipped), the leaf flags
    /// of the ancestors sent, the stems, the history limit, and last the feed positions and winners of
    /// the documents that gained a revision. Returns how many did.
    mutating func insert(_ missing: MissingLeaves, historyLimit: Int, at now: ContinuousClock.Instant) -> Int {
        let batch = missing.documents
        var deepest: Int64 = 0
        var inner: [(document: String, revision: String)] = []
        // INSERT … inner nodes … ON CONFLICT DO NOTHING
        for document in batch {
            for leaf in document.leaves {
                deepest = max(deepest, Int64(Revision.generation(of: leaf.revision) ?? 1))
                for (index, ancestor) in leaf.ancestors.enumerated() {
                    inner.append((document.identifier, ancestor))
                    guard revisions[document.identifier]?[ancestor] == nil else { continue }
                    let parent = index + 1 < leaf.ancestors.count ? leaf.ancestors[index + 1] : ""
                    revisions[document.identifier, default: [:]][ancestor] = Node(
                        parent: parent.isEmpty ? nil : parent, generation: Int64(Revision.generation(of: ancestor) ?? 1),
                        digest: digest(of: ancestor), deleted: false, leaf: false, body: nil, ancestors: nil)
                }
            }
        }
        // INSERT … leaves … ON CONFLICT DO NOTHING RETURNING document: the leaf flag (no child) is read
        // from the table as it was before this statement.
        let parents = Set(revisions.flatMap { document, nodes in
            nodes.values.compactMap { $0.parent.map { document + "\u{0}" + $0 } }
        })
        var gained = Set<String>()
        for document in batch {
            for leaf in document.leaves where revisions[document.identifier]?[leaf.revision] == nil {
                let parent = leaf.ancestors.first ?? ""
                revisions[document.identifier, default: [:]][leaf.revision] = Node(
                    parent: parent.isEmpty ? nil : parent, generation: Int64(Revision.generation(of: leaf.revision) ?? 1),
                    digest: digest(of: leaf.revision), deleted: leaf.deleted,
                    leaf: !parents.contains(document.identifier + "\u{0}" + leaf.revision), body: leaf.body,
                    ancestors: leaf.ancestors.isEmpty ? nil : leaf.ancestors)
                gained.insert(document.identifier)
            }
        }
        // Only documents that gained a revision change (a batch sent twice changes nothing the second time).
        let touched = batch.map(\.identifier).filter(gained.contains)
        guard !touched.isEmpty else { return 0 }
        let kindOf = Dictionary(batch.map { ($0.identifier, $0.kind) }, uniquingKeysWith: { a, _ in a })
        // Every ancestor sent is an inner node now: it keeps no body.
        for (document, revision) in inner where revisions[document]?[revision]?.leaf == true {
            revisions[document]![revision]!.leaf = false
            revisions[document]![revision]!.body = nil
            revisions[document]![revision]!.ancestors = nil
        }
        for document in touched {
            guard let stem = missing.stems[document] else { continue }
            revisions[document] = revisions[document]?.filter { $0.value.generation >= stem }
        }
        let limit = Int64(max(1, historyLimit))
        if deepest > limit || touched.contains(where: { (missing.newest[$0] ?? 0) > limit }) {
            // The history limit below each tree's newest leaf, leaves included.
            for document in touched {
                guard let newest = revisions[document]?.values.filter(\.leaf).map(\.generation).max() else { continue }
                revisions[document] = revisions[document]?.filter { $0.value.generation > newest - limit }
            }
        }
        // Feed positions from the counter, in byte order of the identifiers, and each winner.
        let winners = touched.compactMap { document in winner(of: document).map { (document, $0) } }
            .sorted { byteOrder($0.0, $1.0) }
        feed += Int64(touched.count)
        let first = feed - Int64(touched.count)
        for (index, (document, winner)) in winners.enumerated() {
            documents[document] = Document(kind: kindOf[document] ?? "", winner: winner.revision, deleted: winner.deleted,
                                           sequence: first + Int64(index) + 1, changedAt: now)
        }
        return touched.count
    }
}
