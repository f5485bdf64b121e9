import Foundation

/// What the `shapes` commands report besides DocumentStore's own errors: the identifier and what was
/// wrong with it. Each is printed as `shapes: <description>` with exit status 1.
public enum ShapesError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No document has this identifier (or it was deleted).
    case noDocument(identifier: String)
    /// A Venn diagram needs circles, and this document is another kind.
    case notACircle(identifier: String, kind: String)

    /// One line saying what is wrong, naming the identifier.
    public var description: String {
        switch self {
        case .noDocument(let identifier): "no document \(identifier)"
        case .notACircle(let identifier, let kind): "\(identifier) is a \(kind), not a Circle; a Venn diagram needs two circles"
        }
    }
}
