import DocumentStore
import FileStorageKit
import Foundation

/// The `shapes` app's documents: Dali's shapes, which also store their area so queries can filter and
/// sort on it, and a Venn diagram whose circles load lazily.
public class Shape: Persistable {
    public class var kind: String { "Shape" }
    public var identifier = UUID().uuidString
    public var area: Double { 0 }

    public init() {}

    public required init?(with json: JSON, from persistence: Persistence) throws {}

    /// The fields this shape stores besides `area`.
    public var fields: [String: any JSONRepresentable] { [:] }

    public func save(to: Persistence) throws {
        try to.save(self, json: fields.merging(["area": area]) { own, _ in own })
    }
}

public final class Square: Shape {
    override public class var kind: String { "Square" }
    public let side: Double
    override public var area: Double { side * side }
    override public var fields: [String: any JSONRepresentable] { ["side": side] }

    public init(side: Double) {
        self.side = side
        super.init()
    }

    public required init?(with json: JSON, from persistence: Persistence) throws {
        guard let side: Double = "side" <~~ json else { return nil }
        self.side = side
        try super.init(with: json, from: persistence)
    }
}

public final class Circle: Shape {
    override public class var kind: String { "Circle" }
    public let radius: Double
    override public var area: Double { Double.pi * radius * radius }
    override public var fields: [String: any JSONRepresentable] { ["radius": radius] }

    public init(radius: Double) {
        self.radius = radius
        super.init()
    }

    public required init?(with json: JSON, from persistence: Persistence) throws {
        guard let radius: Double = "radius" <~~ json else { return nil }
        self.radius = radius
        try super.init(with: json, from: persistence)
    }
}

/// Two circles, stored by identifier and loaded on first use.
public final class VennDiagram: Persistable {
    public static let kind = "VennDiagram"
    public var identifier = UUID().uuidString
    public let left: Lazy<Circle>
    public let right: Lazy<Circle>

    public init(left: Circle, right: Circle) {
        self.left = Lazy(left)
        self.right = Lazy(right)
    }

    public init?(with json: JSON, from persistence: Persistence) throws {
        guard let left: String = "left" <~~ json, let right: String = "right" <~~ json else { return nil }
        self.left = Lazy(identifier: left, in: persistence)
        self.right = Lazy(identifier: right, in: persistence)
    }

    public func save(to: Persistence) throws {
        if let circle = left.loaded { try to.save(circle) }
        if let circle = right.loaded { try to.save(circle) }
        try to.save(self, json: ["left": left.identifier, "right": right.identifier])
    }
}

/// Opening the app's store.
public enum ShapesStore {
    /// The store file in `folder`.
    public static func url(folder: URL) -> URL { folder.appendingPathComponent("Shapes.sqlite") }

    /// The app's default folder: its application-support folder.
    public static var defaultFolder: URL { AppDirectories(appName: "shapes").applicationSupport }

    /// Opens (creating) the store in `folder`, with every shape kind registered and an index on area.
    public static func open(folder: URL) throws -> Persistence {
        let persistence = try Persistence(url: url(folder: folder))
        persistence.register(persistableKind: Shape.self)
        persistence.register(persistableKind: Square.self)
        persistence.register(persistableKind: Circle.self)
        persistence.register(persistableKind: VennDiagram.self)
        try persistence.createIndex(kind: Circle.self, fields: ["area"])
        try persistence.createIndex(kind: Circle.self, fields: ["radius"])
        return persistence
    }
}
