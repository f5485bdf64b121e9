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
    /// The document's identifier: a `let` or a `var`.
    ///
    /// The store gives every object it loads the identifier of its document, after
    /// ``init(with:from:)`` returns, so a loaded object is saved back under its own identifier even
    /// when the property is `let identifier = UUID().uuidString`. For that, `identifier` must be a
    /// stored `String` property (of the class or a superclass); an object whose computed identifier
    /// differs from its document's after loading is ``DocumentStoreError/identifierNotStored(kind:identifier:found:)``
    /// (read ``Persistence/identifierBeingLoaded`` in `init(with:from:)` to set such an identifier).
    var identifier: String { get }
    /// Builds the object from its stored JSON; `nil` when the JSON lacks what the object needs.
    ///
    /// ``PropertyReader`` reads what the default ``save(to:)`` wrote.
    ///
    /// - Parameters:
    ///   - json: The document's body.
    ///   - persistence: The store it is loaded from: load related objects through it.
    /// - Throws: Any error, to fail the load: the caller of ``Persistence/load(_:)`` gets it as it is.
    ///   ``PropertyReader`` throws ``DocumentStoreError/unreadableProperty(identifier:property:expected:found:)``
    ///   and ``DocumentStoreError/missingDocument(identifier:kind:)``.
    init?(with json: JSON, from persistence: Persistence) throws
    /// Saves the object: calls `to.save(self, json: [...])`, after saving the objects it refers to.
    ///
    /// The default implementation saves the object's stored properties, found by reflection
    /// (``Persistence/saveStoredProperties(of:)``), renamed or skipped by ``propertyMapping``.
    ///
    /// - Parameter to: The store that is saving: save the object and the objects it refers to through it.
    /// - Throws: Any error, to roll back the whole save (nothing is written); what
    ///   `to.save(self, json:)` and the other `save` calls throw,
    ///   ``DocumentStoreError/conflict(_:)`` among them.
    func save(to: Persistence) throws
    /// How the default ``save(to:)`` names the stored properties: a property mapped to a name is
    /// saved under that name, one mapped to `nil` is not saved, and any other keeps its own name.
    ///
    /// The default is ``defaultPropertyMapping`` (which skips `identifier`). In a class hierarchy,
    /// declare it in the base class and `override` it in subclasses: a subclass cannot replace a
    /// default it inherited from this protocol.
    ///
    /// ```swift
    /// override var propertyMapping: [String: String?] {
    ///     var mapping = super.propertyMapping
    ///     mapping["side"] = "length"      // stored as "length"
    ///     mapping.updateValue(nil, forKey: "cachedArea")   // not stored (`mapping[k] = nil` would remove the entry)
    ///     return mapping
    /// }
    /// ```
    var propertyMapping: [String: String?] { get }
}

extension Persistable {
    /// The mapping every object starts from: `identifier` (stored with the document, not in its body)
    /// and Dali's `kind` and `propertyMapping` are not saved.
    public var defaultPropertyMapping: [String: String?] {
        ["identifier": nil, "kind": nil, "propertyMapping": nil]
    }

    /// ``defaultPropertyMapping``.
    public var propertyMapping: [String: String?] { defaultPropertyMapping }

    /// Saves the stored properties: ``Persistence/saveStoredProperties(of:)``.
    ///
    /// - Parameter to: The store that is saving the object.
    /// - Throws: What ``Persistence/saveStoredProperties(of:)`` throws:
    ///   ``DocumentStoreError/unstorableProperty(identifier:kind:property:type:)`` for a property with no
    ///   JSON form, ``DocumentStoreError/invalidValue(identifier:path:reason:)``, and what saving throws.
    public func save(to: Persistence) throws {
        try to.saveStoredProperties(of: self)
    }
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
    /// Decodes the object from its stored JSON with its `Decodable` initializer.
    ///
    /// Never returns `nil`: a document that does not decode throws instead.
    ///
    /// - Parameters:
    ///   - json: The document's body.
    ///   - persistence: The store it is loaded from (unused: a `Codable` object holds no relationships
    ///     loaded through the store).
    /// - Throws: `DecodingError` when the body does not match the type (a missing key, another type).
    public init?(with json: JSON, from persistence: Persistence) throws {
        try self.init(from: JSONValueDecoder(json))
    }

    /// Saves the object's `Encodable` form as its document's body.
    ///
    /// - Parameter to: The store that is saving the object.
    /// - Throws: `EncodingError` from Foundation's `JSONEncoder` (a number that is not finite, among
    ///   others); what ``Persistence/save(_:document:)`` throws.
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
