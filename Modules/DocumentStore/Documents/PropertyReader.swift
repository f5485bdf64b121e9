import Foundation

/// Reads back, in `init(with:from:)`, what the default `save(to:)` wrote: properties by name (through
/// the same mapping), typed, with relationships loaded through the identity map.
///
/// ```swift
/// class Square: Shape {
///     override class var kind: String { "Square" }
///     let side: Double
///     var note: String?
///     weak var neighbour: Square?
///     override var propertyMapping: [String: String?] { super.propertyMapping.merging(Self.names) { $1 } }
///     static let names: [String: String?] = ["side": "length"]
///
///     required init?(with json: JSON, from persistence: Persistence) throws {
///         let stored = PropertyReader(json, from: persistence, mapping: Self.names)
///         side = try stored.value("side")            // stored as "length"
///         note = try stored.value("note")            // nil when missing or null
///         neighbour = try stored.object("neighbour") // loaded now (use `lazy(_:)` to defer)
///         try super.init(with: json, from: persistence)
///     }
/// }
/// ```
///
/// A swift `let` must be set in the initializer, and Swift offers no way to do that by reflection, so
/// the reading is written out, one line per property; the types and keys are checked here instead of
/// being left to `<~~`'s silent `nil`.
public struct PropertyReader {
    /// The document body being read.
    public let json: JSON
    private let persistence: Persistence
    private let mapping: [String: String?]
    /// The document being loaded, for errors.
    private let identifier: String

    /// A reader of `json` (what `init(with:from:)` was given), whose properties are stored under the
    /// names `mapping` gives them (the part of ``Persistable/propertyMapping`` that renames; by default
    /// each property under its own name).
    public init(_ json: JSON, from persistence: Persistence, mapping: [String: String?] = [:]) {
        self.json = json
        self.persistence = persistence
        self.mapping = mapping
        identifier = Persistence.identifierBeingLoaded ?? "(not being loaded)"
    }

    /// The key `property` is stored under.
    public func key(for property: String) -> String? {
        if let mapped = mapping[property] { return mapped }
        return property
    }

    /// The value of a property that must be present.
    ///
    /// - Throws: ``DocumentStoreError/unreadableProperty(identifier:property:expected:found:)`` when it
    ///   is missing, `null`, or of another type.
    public func value<V: JSONDecodable>(_ property: String) throws(DocumentStoreError) -> V {
        let stored = try field(property, expecting: V.self)
        guard let stored, stored != .null else { throw mismatch(property, V.self, stored) }
        guard let value = V(json: stored) else { throw mismatch(property, V.self, stored) }
        return value
    }

    /// The value of an optional property: `nil` when it is missing or `null`.
    ///
    /// - Throws: ``DocumentStoreError/unreadableProperty(identifier:property:expected:found:)`` when it
    ///   holds another type.
    public func value<V: JSONDecodable>(_ property: String) throws(DocumentStoreError) -> V? {
        guard let stored = try field(property, expecting: V.self), stored != .null else { return nil }
        guard let value = V(json: stored) else { throw mismatch(property, V.self, stored) }
        return value
    }

    /// The object a relationship property refers to, loaded now (or the live instance).
    ///
    /// - Throws: ``DocumentStoreError/missingDocument(identifier:kind:)`` when the document it names is
    ///   gone, ``DocumentStoreError/unreadableProperty(identifier:property:expected:found:)`` when the
    ///   property is missing or not an identifier, and what loading throws.
    public func object<T: Persistable>(_ property: String) throws -> T {
        guard let found: T = try object(property) else {
            throw mismatch(property, T.self, try field(property, expecting: T.self))
        }
        return found
    }

    /// The object an optional relationship property refers to: `nil` when the property is missing or
    /// `null`; a document that is gone is ``DocumentStoreError/missingDocument(identifier:kind:)``.
    ///
    /// - Parameter property: The property's name (stored under its mapped key).
    /// - Returns: The loaded object, or `nil`.
    /// - Throws: ``DocumentStoreError/missingDocument(identifier:kind:)`` when the document it names is
    ///   gone, ``DocumentStoreError/unreadableProperty(identifier:property:expected:found:)`` when the
    ///   property is not an identifier, and what ``Persistence/load(_:)`` throws.
    public func object<T: Persistable>(_ property: String) throws -> T? {
        guard let stored = try field(property, expecting: T.self), stored != .null else { return nil }
        return try load(stored, property: property, path: property)
    }

    /// The objects an array-of-relationships property refers to, in order.
    ///
    /// - Parameter property: The property's name (stored under its mapped key).
    /// - Returns: One object per stored identifier.
    /// - Throws: ``DocumentStoreError/unreadableProperty(identifier:property:expected:found:)`` when the
    ///   property is missing or not an array of identifiers,
    ///   ``DocumentStoreError/missingDocument(identifier:kind:)`` when a document it names is gone, and
    ///   what ``Persistence/load(_:)`` throws.
    public func objects<T: Persistable>(_ property: String) throws -> [T] {
        guard case .array(let items)? = try field(property, expecting: [T].self) else {
            throw mismatch(property, [T].self, try field(property, expecting: [T].self))
        }
        return try items.enumerated().map { index, item in
            try load(item, property: property, path: "\(property)[\(index)]")
        }
    }

    /// A relationship property as a ``Lazy``, loaded on first use; empty when missing or `null`.
    ///
    /// ```swift
    /// owner = try stored.lazy("owner")   // nothing is loaded until owner.get()
    /// ```
    ///
    /// - Parameter property: The property's name (stored under its mapped key).
    /// - Returns: A ``Lazy`` holding the stored identifier.
    /// - Throws: ``DocumentStoreError/unreadableProperty(identifier:property:expected:found:)`` when the
    ///   property holds something other than a string or `null`.
    public func lazy<T: Persistable>(_ property: String) throws(DocumentStoreError) -> Lazy<T> {
        guard let stored = try field(property, expecting: T.self), stored != .null else {
            return Lazy(identifier: nil, in: persistence)
        }
        guard case .string(let target) = stored else { throw mismatch(property, T.self, stored) }
        return Lazy(identifier: target, in: persistence)
    }

    // MARK: Internals

    private func field(_ property: String, expecting type: Any.Type) throws(DocumentStoreError) -> JSON? {
        guard let key = key(for: property) else {
            throw .unreadableProperty(identifier: identifier, property: property, expected: "\(type)",
                                      found: "not stored (propertyMapping maps it to nil)")
        }
        return json[key]
    }

    private func load<T: Persistable>(_ stored: JSON, property: String, path: String) throws -> T {
        guard case .string(let target) = stored else { throw mismatch(path, T.self, stored) }
        guard let object: T = try persistence.load(target) else {
            throw DocumentStoreError.missingDocument(identifier: target, kind: T.kind)
        }
        return object
    }

    private func mismatch(_ property: String, _ type: Any.Type, _ found: JSON?) -> DocumentStoreError {
        let shown: String
        if let found {
            let text = found.canonicalText
            shown = text.count > 60 ? String(text.prefix(57)) + "..." : text
        } else {
            shown = "missing"
        }
        return .unreadableProperty(identifier: identifier, property: key(for: property) ?? property,
                                   expected: "\(type)", found: shown)
    }
}
