import Foundation
import GRDB
import GRDBSQLite

/// A revision made elsewhere (by a replica), with the identifiers of its ancestors, nearest first.
package struct ForeignRevision: Sendable, Equatable {
    package var identifier: String
    package var kind: String
    package var revision: String
    package var ancestors: [String]
    package var deleted: Bool
    package var body: JSON?
    /// The body's canonical text when the caller already made it (a replicator checking the digest), so
    /// the insert does not make it again.
    package var canonicalBody: String?

    package init(identifier: String, kind: String, revision: String, ancestors: [String], deleted: Bool, body: JSON?,
                 canonicalBody: String? = nil) {
        self.identifier = identifier
        self.kind = kind
        self.revision = revision
        self.ancestors = ancestors
        self.deleted = deleted
        self.body = body
        self.canonicalBody = canonicalBody
    }
}
