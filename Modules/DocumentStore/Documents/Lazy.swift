import Foundation

/// A relationship loaded on first use: Dali's lazy `square`, without its `try!`.
///
/// ```swift
/// final class LazyLabel: Persistable {
///     static let kind = "LazyLabel"
///     var identifier = UUID().uuidString
///     let square: Lazy<Square>
///
///     init(square: Square) { self.square = Lazy(square) }
///     init?(with json: JSON, from persistence: Persistence) throws {
///         square = Lazy(identifier: "square" <~~ json, in: persistence)
///     }
///     func save(to: Persistence) throws {
///         if let square = square.loaded { try to.save(square) }
///         try to.save(self, json: ["square": square.identifier])
///     }
/// }
/// let side = try label.square.get()?.side      // loads now, once
/// ```
///
/// Like the objects that hold it, a `Lazy` is not `Sendable`.
public final class Lazy<T: Persistable> {
    private let persistence: Persistence?
    private var target: T?
    private var identifierWhenUnloaded: String?

    /// A relationship to `object`, already loaded (`nil` for none).
    public init(_ object: T?) {
        persistence = nil
        target = object
    }

    /// A relationship to the document `identifier` (`nil` for none), loaded from `persistence` on first use.
    public init(identifier: String?, in persistence: Persistence) {
        self.persistence = persistence
        identifierWhenUnloaded = identifier
    }

    /// The target's identifier, without loading it.
    public var identifier: String? { target?.identifier ?? identifierWhenUnloaded }

    /// Whether the target is loaded (or there is none).
    public var isLoaded: Bool { target != nil || identifierWhenUnloaded == nil }

    /// The target if it is loaded, without loading it.
    public var loaded: T? { target }

    /// The target, loaded now if it was not: `nil` only when the relationship is empty.
    ///
    /// - Throws: ``DocumentStoreError/missingDocument(identifier:kind:)`` when the identifier names no
    ///   document (or a deleted one), ``DocumentStoreError/wrongKind(identifier:expected:found:)``, or
    ///   what loading it throws. A failed load is tried again on the next call.
    public func get() throws -> T? {
        if let target { return target }
        guard let identifier = identifierWhenUnloaded else { return nil }
        guard let persistence else { throw DocumentStoreError.missingDocument(identifier: identifier, kind: T.kind) }
        guard let loaded: T = try persistence.load(identifier) else {
            throw DocumentStoreError.missingDocument(identifier: identifier, kind: T.kind)
        }
        target = loaded
        identifierWhenUnloaded = nil
        return loaded
    }

    /// Points the relationship at `object` (`nil` for none).
    public func set(_ object: T?) {
        target = object
        identifierWhenUnloaded = nil
    }
}
