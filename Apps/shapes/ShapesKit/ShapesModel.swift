import DocumentStore
import Foundation

// The `shapes` app's documents: the Dali post's classes, written the post's way (`class var kind`,
// `init?(with:from:)`, `save(to:)`). Two changes: each shape stores its `area` beside its side or
// radius, so queries can filter and sort on it, and the Venn diagram holds its circles as
// `Lazy<Circle>`, so loading a diagram reads its circles only when they are used.

/// A shape with an area: the base class of ``Square`` and ``Circle``.
///
/// Asking the store for a `Shape` gives the stored subclass: `try persistence.load(Shape.self, id)`
/// is a `Square` or a `Circle`.
public class Shape: Persistable {
    /// The document kind, `"Shape"`; subclasses override it.
    public class var kind: String { "Shape" }
    /// The document's identifier: a new UUID, or the stored one for a loaded shape.
    public var identifier = UUID().uuidString
    /// The shape's area; stored with the document, so queries can use it.
    public var area: Double { 0 }

    /// A new shape, not yet saved.
    public init() {}

    /// A shape loaded from its document (a plain `Shape` stores nothing of its own).
    public required init?(with json: JSON, from persistence: Persistence) throws {}

    /// Saves the shape's area.
    public func save(to: Persistence) throws {
        try to.save(self, json: ["area": area])
    }
}

/// A square, stored as `{"side": 3, "area": 9}`.
public final class Square: Shape {
    /// The document kind, `"Square"`.
    override public class var kind: String { "Square" }
    /// The length of a side.
    public let side: Double
    /// `side * side`.
    override public var area: Double { side * side }

    /// A new square, not yet saved.
    public init(side: Double) {
        self.side = side
        super.init()
    }

    /// A square loaded from its document; `nil` when the document has no numeric `side`.
    public required init?(with json: JSON, from persistence: Persistence) throws {
        guard let side: Double = "side" <~~ json else { return nil }
        self.side = side
        try super.init(with: json, from: persistence)
    }

    /// Saves the side and the area.
    override public func save(to: Persistence) throws {
        try to.save(self, json: ["side": side, "area": area])
    }
}

/// A circle, stored as `{"radius": 2, "area": 12.566…}`.
public final class Circle: Shape {
    /// The document kind, `"Circle"`.
    override public class var kind: String { "Circle" }
    /// The radius.
    public let radius: Double
    /// `π * radius²`.
    override public var area: Double { Double.pi * radius * radius }

    /// A new circle, not yet saved.
    public init(radius: Double) {
        self.radius = radius
        super.init()
    }

    /// A circle loaded from its document; `nil` when the document has no numeric `radius`.
    public required init?(with json: JSON, from persistence: Persistence) throws {
        guard let radius: Double = "radius" <~~ json else { return nil }
        self.radius = radius
        try super.init(with: json, from: persistence)
    }

    /// Saves the radius and the area.
    override public func save(to: Persistence) throws {
        try to.save(self, json: ["radius": radius, "area": area])
    }
}

/// Two circles, stored by identifier (`{"left": ID, "right": ID}`) and loaded on first use.
///
/// ```swift
/// let venn: VennDiagram? = try persistence.load(id)   // reads one document
/// let radius = try venn?.left.get()?.radius           // reads the left circle now
/// ```
public final class VennDiagram: Persistable {
    /// The document kind, `"VennDiagram"`.
    public static let kind = "VennDiagram"
    /// The document's identifier.
    public var identifier = UUID().uuidString
    /// The left circle, loaded on first `get()`.
    public let left: Lazy<Circle>
    /// The right circle, loaded on first `get()`.
    public let right: Lazy<Circle>

    /// A new diagram of two circles; saving it saves them too, in the same transaction.
    public init(left: Circle, right: Circle) {
        self.left = Lazy(left)
        self.right = Lazy(right)
    }

    /// A diagram loaded from its document, its circles not yet loaded; `nil` when an identifier is missing.
    public init?(with json: JSON, from persistence: Persistence) throws {
        guard let left: String = "left" <~~ json, let right: String = "right" <~~ json else { return nil }
        self.left = Lazy(identifier: left, in: persistence)
        self.right = Lazy(identifier: right, in: persistence)
    }

    /// Saves the circles that are loaded (the others cannot have changed), then the two identifiers.
    public func save(to: Persistence) throws {
        if let circle = left.loaded { try to.save(circle) }
        if let circle = right.loaded { try to.save(circle) }
        try to.save(self, json: ["left": left.identifier, "right": right.identifier])
    }
}

/// The kinds of documents the app keeps, as `--kind` takes them.
public enum ShapeKind: String, CaseIterable, Sendable {
    /// Squares and circles (the `Shape` class and its subclasses).
    case shape = "Shape"
    /// Squares only.
    case square = "Square"
    /// Circles only.
    case circle = "Circle"
    /// Venn diagrams.
    case vennDiagram = "VennDiagram"

    /// The class that loads this kind.
    public var type: any Persistable.Type {
        switch self {
        case .shape: Shape.self
        case .square: Square.self
        case .circle: Circle.self
        case .vennDiagram: VennDiagram.self
        }
    }
}

/// Opening the app's store, `<folder>/Shapes.sqlite`.
public enum ShapesStore {
    /// The store file in `folder`.
    public static func url(folder: URL) -> URL { folder.appendingPathComponent("Shapes.sqlite") }

    /// Opens (creating when missing) the store in `folder`, with every kind registered and indexes on
    /// circles' `radius` and `area` (created once; opening again finds them).
    ///
    /// A damaged file is moved aside and a new store opened (DocumentStore's policy); `report` gets
    /// the description of what was moved where, for the user.
    ///
    /// - Throws: `DocumentStoreError` when the file cannot be opened or is not a document store.
    public static func open(folder: URL, report: (String) -> Void = { _ in }) throws(DocumentStoreError) -> Persistence {
        let persistence = try Persistence(url: url(folder: folder))
        if let recovered = persistence.recoveredFromCorruption { report("\(recovered)") }
        persistence.register(persistableKind: Shape.self)
        persistence.register(persistableKind: Square.self)
        persistence.register(persistableKind: Circle.self)
        persistence.register(persistableKind: VennDiagram.self)
        _ = try persistence.createIndex(kind: Circle.self, fields: ["radius"])
        _ = try persistence.createIndex(kind: Circle.self, fields: ["area"])
        return persistence
    }
}
