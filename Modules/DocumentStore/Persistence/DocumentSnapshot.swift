import Foundation
import SQLiteSupport
import FileStorageKit
import GRDB

/// A stored document as JSON: what queries and live queries return across threads.
///
/// ```swift
/// if let snapshot = try persistence.snapshot(identifier) {
///     print(snapshot.kind, snapshot.revision, snapshot.body)   // Circle 2-9f86d0… {"radius":2.0}
/// }
/// for try await snapshots in persistence.query(Circle.self).observe() { show(snapshots) }
/// ```
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
