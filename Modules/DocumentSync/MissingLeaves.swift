import DocumentStore

/// The leaves of a batch the server lacks, judged against the server's trees of the batch's documents:
/// the first half of a push, the same for every ``ReplicationServer``.
///
/// A leaf is missing when the server has no node of that revision, unless it lies past the history
/// horizon of the server's newest leaf of its document (superseded already: pruned or never kept). A
/// leaf whose ancestry is cut short at a revision the server does not know either makes a *stem*: what
/// lies below it cannot be compared, so the server removes the document's nodes older than it.
package struct MissingLeaves: Sendable {
    /// One node of a document's revision tree on the server, as a push reads it.
    package struct ServerNode: Sendable {
        package let document: String
        package let revision: String
        package let generation: Int64
        package let leaf: Bool

        package init(document: String, revision: String, generation: Int64, leaf: Bool) {
            self.document = document
            self.revision = revision
            self.generation = generation
            self.leaf = leaf
        }
    }

    /// The documents with at least one missing leaf, each with only those leaves, in batch order.
    package private(set) var documents: [OutgoingDocument]
    /// Per document, the generation of the oldest ancestor sent that the server does not know (when
    /// greater than 1): nodes below it are removed.
    package private(set) var stems: [String: Int64]
    /// Per document, the generation of the server's newest leaf before the batch.
    package private(set) var newest: [String: Int64]
    /// How many leaves are missing.
    package private(set) var revisions: Int

    /// The leaves of `batch` missing from a server whose trees of those documents are `nodes`.
    package init(_ batch: [OutgoingDocument], server nodes: [ServerNode], historyLimit: Int) {
        var present = Set<String>()
        var newest: [String: Int64] = [:]
        for node in nodes {
            present.insert(node.document + "\u{0}" + node.revision)
            if node.leaf { newest[node.document] = max(newest[node.document] ?? 0, node.generation) }
        }
        let limit = Int64(max(1, historyLimit))
        var outgoing: [OutgoingDocument] = []
        var stems: [String: Int64] = [:]
        var revisions = 0
        for document in batch {
            let leaves = document.leaves.filter { leaf in
                guard !present.contains(document.identifier + "\u{0}" + leaf.revision) else { return false }
                let generation = Int64(Revision.generation(of: leaf.revision) ?? 1)
                // Past the horizon of the server's newest leaf: superseded already (pruned or never kept).
                return generation > (newest[document.identifier] ?? 0) - limit
            }
            guard !leaves.isEmpty else { continue }
            for leaf in leaves {
                // An ancestry cut short whose oldest entry the server does not know either: what lies
                // below it cannot be compared, so it is superseded (RevisionTree.insert does the same).
                if let oldest = leaf.ancestors.last, let generation = Revision.generation(of: oldest), generation > 1,
                   !present.contains(document.identifier + "\u{0}" + oldest) {
                    stems[document.identifier] = max(stems[document.identifier] ?? 0, Int64(generation))
                }
            }
            revisions += leaves.count
            outgoing.append(OutgoingDocument(identifier: document.identifier, kind: document.kind, leaves: leaves))
        }
        self.documents = outgoing
        self.stems = stems
        self.newest = newest
        self.revisions = revisions
    }

    /// Every leaf of `batch`, as if the server had none of them (no stems, no known newest leaf): what a
    /// test sends to see that the server itself skips what it has.
    package init(assumingNoneKnown batch: [OutgoingDocument]) {
        documents = batch
        stems = [:]
        newest = [:]
        revisions = batch.reduce(0) { $0 + $1.leaves.count }
    }
}
