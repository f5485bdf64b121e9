import Foundation

/// Both sides of a refused save: the revision the object was based on and what it tried to write,
/// and the document's current revision and body.
///
/// ``DocumentStoreError/conflict(_:)`` carries one:
///
/// ```swift
/// do {
///     try persistence.save(counter)
/// } catch DocumentStoreError.conflict(let conflict) {
///     print("\(conflict.identifier) is at \(conflict.currentRevision) now:", conflict.current ?? "deleted")
/// }
/// ```
public struct DocumentConflict: Sendable, Equatable, CustomStringConvertible {
    /// The document's identifier.
    public let identifier: String
    /// The kind of the object being saved.
    public let kind: String
    /// The revision the saved object was loaded or last saved at; `nil` for a new object.
    public let baseRevision: String?
    /// The body the save tried to write (`nil` for a delete).
    public let attempted: JSON?
    /// The document's current revision.
    public let currentRevision: String
    /// The document's current body (`nil` when the current revision is a deletion).
    public let current: JSON?

    public var description: String {
        let base = baseRevision.map { "based on revision \($0)" } ?? "as a new document"
        return "conflict on \(kind) \(identifier): saved \(base), but the current revision is \(currentRevision)"
            + (current == nil ? " (deleted)" : "")
    }
}
