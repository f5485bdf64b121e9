import DocumentStore

/// One page of the server's change feed: the leaves of the next documents after a position, and the
/// purge records up to the last of them, read as of one moment (see ``ReplicationServer/feedPage(after:limit:kinds:)``).
package struct FeedPage: Sendable {
    /// Each leaf of each document, in feed order, then by revision.
    package var rows: [Row]
    /// The purge records of the page, in feed order.
    package var purges: [Purge]

    package init(rows: [Row], purges: [Purge]) {
        self.rows = rows
        self.purges = purges
    }

    /// One leaf of the server's feed.
    package struct Row: Sendable, Equatable {
        package let sequence: Int64
        package let identifier: String
        package let kind: String
        package let revision: String
        package let deleted: Bool
        package let body: String?
        package let ancestors: [String]

        package init(sequence: Int64, identifier: String, kind: String, revision: String, deleted: Bool, body: String?,
                     ancestors: [String]) {
            self.sequence = sequence
            self.identifier = identifier
            self.kind = kind
            self.revision = revision
            self.deleted = deleted
            self.body = body
            self.ancestors = ancestors
        }

        /// The revision to insert, after checking that its digest is the digest of its parent, flag and body.
        package func verified() throws -> ForeignRevision {
            let json: JSON?
            do {
                json = deleted ? JSON?.none : try JSON(parsing: body ?? "", identifier: identifier)
            } catch {
                throw DocumentSyncError.invalidRevision(identifier: identifier, revision: revision,
                                                        reason: "its body on the server is not JSON (\(error))")
            }
            let canonical = json?.canonicalText ?? "{}"
            guard Revision.next(after: ancestors.first, canonicalBody: canonical, deleted: deleted) == revision else {
                throw DocumentSyncError.invalidRevision(identifier: identifier, revision: revision,
                                                        reason: "its digest does not match its parent and body on the server")
            }
            return ForeignRevision(identifier: identifier, kind: kind, revision: revision, ancestors: ancestors,
                                   deleted: deleted, body: json, canonicalBody: canonical)
        }
    }

    /// One purge record of the server's feed: the document the tombstone purge removed.
    package struct Purge: Sendable, Equatable {
        package let sequence: Int64
        package let identifier: String

        package init(sequence: Int64, identifier: String) {
            self.sequence = sequence
            self.identifier = identifier
        }
    }
}
