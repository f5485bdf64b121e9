import Foundation

/// An object the store keeps as a JSON document: Dali's protocol.
///
/// A document has a ``kind`` (the type's name in the store) and an ``identifier``; ``save(to:)`` hands
/// the store its JSON, and ``init(with:from:)`` builds the object back from it. Relationships are
/// stored identifiers: save the related object and store its identifier, load it back with
/// ``Persistence/load(_:)`` (eagerly) or ``Lazy`` (on first use).
///
/// ```swift
/// class Square: Shape {
///     override class var kind: String { return "Square" }
///     let side: Double
///     required init?(with json: JSON, from persistence: Persistence) throws {
///         guard let side: Double = "side" <~~ json else { return nil }
///         self.side = side
///         try super.init(with: json, from: persistence)
///     }
///     override func save(to: Persistence) throws {
///         try to.save(self, json: ["side": side])
///     }
/// }
/// ```
///
/// Objects are not `Sendable`: keep each one on the thread or actor that loaded it. ``Persistence``
/// itself may be used from anywhere.
public protocol Persistable: AnyObject {
    /// The document kind, stored with each document. Subclasses override it (`class var`), so a
    /// stored `Square` loads as a `Square` when a `Shape` is asked for.
    static var kind: String { get }
    /// The document's identifier. The store sets it on every object it loads, so a loaded object is
    /// saved back under its own identifier.
    var identifier: String { get set }
    /// Builds the object from its stored JSON; `nil` when the JSON lacks what the object needs.
    init?(with json: JSON, from persistence: Persistence) throws
    /// Saves the object: calls `to.save(self, json: [...])`, after saving the objects it refers to.
    func save(to: Persistence) throws
}

/// A `Persistable` whose JSON is its `Codable` form: no hand-written `init(with:from:)` or `save(to:)`.
///
/// The type must be a `final class` (a protocol's default initializer cannot serve subclasses).
/// Encoding goes through Foundation's `JSONEncoder` and decoding reads the JSON the same way, so dates
/// (seconds since 2001), data (Base64) and URLs follow its default strategies.
///
/// ```swift
/// final class Note: CodablePersistable {
///     static let kind = "Note"
///     var identifier = UUID().uuidString
///     var text: String
///     var tags: [String]
/// }
/// ```
public protocol CodablePersistable: Persistable, Codable {}

extension CodablePersistable {
    public init?(with json: JSON, from persistence: Persistence) throws {
        try self.init(from: JSONValueDecoder(json))
    }

    public func save(to: Persistence) throws {
        try to.save(self, document: try JSONBridge.encode(self))
    }
}

/// Between `Codable` values and ``JSON``, through Foundation's JSON coders.
enum JSONBridge {
    static func encode<T: Encodable>(_ value: T) throws -> JSON {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return try JSONParser.parse(String(decoding: data, as: UTF8.self), identifier: nil)
    }
}
