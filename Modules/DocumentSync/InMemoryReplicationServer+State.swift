import DocumentStore

extension InMemoryReplicationServer {
    /// What the server holds: the rows of ``ServerSchema``'s tables, keyed as their primary keys are.
    package struct State: Sendable, Equatable {
        /// A row of `documents`: a document's winner and latest feed position.
        package struct Document: Sendable, Equatable {
            package var kind: String
            package var winner: String
            package var deleted: Bool
            package var sequence: Int64
            package var changedAt: ContinuousClock.Instant
        }

        /// A row of `revisions`: a node of a revision tree. Leaves keep their body and ancestry; inner
        /// nodes keep neither.
        package struct Node: Sendable, Equatable {
            package var parent: String?
            package var generation: Int64
            package var digest: String
            package var deleted: Bool
            package var leaf: Bool
            package var body: String?
            package var ancestors: [String]?
        }

        /// A row of `purges`.
        package struct Purge: Sendable, Equatable {
            package var sequence: Int64
            package var identifier: String
            package var kind: String
        }

        /// The feed counter: the last position given.
        package var feed: Int64 = 0
        package var purgeHorizon: Int64 = 0
        package var documents: [String: Document] = [:]
        /// document → revision → node.
        package var revisions: [String: [String: Node]] = [:]
        /// replication → direction → the history's text.
        package var checkpoints: [String: [ReplicationDirection: String]] = [:]
        /// In feed order.
        package var purges: [Purge] = []

        mutating func setCheckpoint(_ history: CheckpointHistory, _ direction: ReplicationDirection, of replication: String) {
            checkpoints[replication, default: [.push: "", .pull: ""]][direction] = history.description
        }

        /// The nodes of the given documents' trees.
        func nodes(of identifiers: [String]) -> [MissingLeaves.ServerNode] {
            Set(identifiers).flatMap { document in
                (revisions[document] ?? [:]).map { revision, node in
                    MissingLeaves.ServerNode(document: document, revision: revision, generation: node.generation, leaf: node.leaf)
                }
            }
        }

        /// The winning leaf of a document (`winner(id)`): not deleted before deleted, then the higher
        /// generation, then the greater digest in byte order; `nil` when it has no leaf.
        package func winner(of document: String) -> (revision: String, deleted: Bool)? {
            let leaves = (revisions[document] ?? [:]).filter(\.value.leaf)
            let best = leaves.min { a, b in
                if a.value.deleted != b.value.deleted { return !a.value.deleted }
                if a.value.generation != b.value.generation { return a.value.generation > b.value.generation }
                return b.value.digest.utf8.lexicographicallyPrecedes(a.value.digest.utf8)
            }
            return best.map { ($0.key, $0.value.deleted) }
        }
    }
}

/// PostgreSQL's `COLLATE "C"` order: bytes of the UTF-8 text (Swift's `<` compares normalized scalars).
func byteOrder(_ a: String, _ b: String) -> Bool {
    a.utf8.lexicographicallyPrecedes(b.utf8)
}

/// `split_part(revision, '-', 2)`: the digest of a revision identifier.
func digest(of revision: String) -> String {
    let parts = revision.split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
    return parts.count > 1 ? String(parts[1]) : ""
}
