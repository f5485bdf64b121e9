import Foundation
import GRDB
import GRDBSQLite

/// A document changed locally, as a replicator pushes it: its leaves with their bodies and ancestry.
package struct OutgoingDocument: Sendable, Equatable {
    package let identifier: String
    package let kind: String
    package let leaves: [OutgoingRevision]

    package init(identifier: String, kind: String, leaves: [OutgoingRevision]) {
        self.identifier = identifier
        self.kind = kind
        self.leaves = leaves
    }
}

/// One leaf of an ``OutgoingDocument``: the canonical JSON text exactly as stored (`{}` for a deletion)
/// and its ancestors, nearest first.
package struct OutgoingRevision: Sendable, Equatable {
    package let revision: String
    package let deleted: Bool
    package let body: String
    package let ancestors: [String]
}

/// A page of the local change feed, grouped by document.
package struct OutgoingPage: Sendable {
    package let documents: [OutgoingDocument]
    /// The last feed position the page covers (the next page starts after it).
    package let lastSequence: Int64
    /// Whether the feed has more changes after ``lastSequence``.
    package let hasMore: Bool

    package init(documents: [OutgoingDocument], lastSequence: Int64, hasMore: Bool) {
        self.documents = documents
        self.lastSequence = lastSequence
        self.hasMore = hasMore
    }
}
