// The classes of the Dali post ("Dali: Persistence", 2016), as published, with only these
// Swift 2 -> Swift 6 spelling changes:
//   1. `NSUUID().UUIDString` -> `UUID().uuidString`
//   2. `M_PI` -> `Double.pi`
//   3. `let` in each `guard` clause (`guard let left: Circle = ..., let right: Circle = ...`)
//   4. `try left.save(to)` -> `try left.save(to: to)` (argument labels are required)
//   5. `let identifier` -> `var identifier` (not needed since `let identifier` works: kept so the
//      tests and document-probe can give objects chosen identifiers; Tests/DaliSampleClient keeps `let`)
// plus `public` on each declaration (they live in a module shared by the tests and the probe) and
// `import DocumentStore` / `import Foundation`. DaliShapesSpellingTests checks this file against the post.
import DocumentStore
import Foundation

public class Shape : Persistable {
    public class var kind: String { return "Shape" }
    public var identifier = UUID().uuidString

    public var area: Double {
        return 0.0
    }

    public init() { }

    public required init?(with json: JSON, from persistence: Persistence) throws { }

    public func save(to: Persistence) throws {
        try to.save(self, json: [:])
    }
}

public class Square : Shape {
    override public class var kind: String { return "Square" }

    public let side: Double

    override public var area: Double {
        return side * side
    }

    public init(side: Double) {
        self.side = side
        super.init()
    }

    public required init?(with json: JSON, from persistence: Persistence) throws {
        guard let side: Double = "side" <~~ json else { return nil }
        self.side = side
        try super.init(with: json, from: persistence)
    }

    override public func save(to: Persistence) throws {
        try to.save(self, json: ["side": side])
    }
}

public class Circle : Shape {
    override public class var kind: String { return "Circle" }

    public let radius: Double

    override public var area: Double {
        return Double.pi * radius * radius
    }

    public init(radius: Double) {
        self.radius = radius
        super.init()
    }

    public required init?(with json: JSON, from persistence: Persistence) throws {
        guard let radius: Double = "radius" <~~ json else { return nil }
        self.radius = radius
        try super.init(with: json, from: persistence)

    }

    override public func save(to: Persistence) throws {
        try to.save(self, json: ["radius": radius])
    }
}

public final class VennDiagram : Persistable {
    public static let kind = "VennDiagram"
    public var identifier = UUID().uuidString

    public let left: Circle
    public let right: Circle

    public init(left: Circle, right: Circle) {
        self.left = left
        self.right = right
    }

    public required init?(with json: JSON, from persistence: Persistence) throws {
        guard let left: Circle = try persistence.load("left" <~~ json),
            let right: Circle = try persistence.load("right" <~~ json)
            else { return nil }
        self.left = left
        self.right = right
    }

    public func save(to: Persistence) throws {
        try left.save(to: to)
        try right.save(to: to)
        try to.save(self, json: ["left": left.identifier, "right": right.identifier])
    }

}

public final class LazySquare : Persistable {
    public static let kind = "LazySquare"
    public var identifier = UUID().uuidString

    private weak var persistence: Persistence?
    private var squareIdentifier: String?
    public lazy var square: Square? = try! self.persistence?.load(self.squareIdentifier)

    public init(square: Square) {
        self.square = square
    }

    public required init?(with json: JSON, from persistence: Persistence) throws {
        self.persistence = persistence
        self.squareIdentifier = "square" <~~ json
    }

    public func save(to: Persistence) throws {
        if let square = square {
            try square.save(to: to)
            try to.save(self, json: ["square": square.identifier])
        } else {
            try to.save(self, json: [:])
        }
    }
}
