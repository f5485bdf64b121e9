import Foundation
import SQLiteSupport
import FileStorageKit
import GRDB

/// A stored document as JSON: what queries and live queries return across threads.
public struct DocumentSnapshot: Sendable, Hashable {
    /// The document's identifier.
    public let identifier: String
    /// Its kind.
    public let kind: String
    /// Its current revision.
    public let revision: String
    /// Its body.
    public let body: JSON
}
