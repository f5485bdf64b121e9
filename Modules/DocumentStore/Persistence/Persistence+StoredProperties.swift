import Foundation

extension Persistence {
    /// Saves `object`'s stored properties as its document, and the objects they refer to, in one
    /// transaction: what a `Persistable` without its own `save(to:)` does (Dali's reflection save).
    ///
    /// The properties are read with `Mirror`, from the object's class and each superclass, so a
    /// subclass saves its superclasses' properties too, under its own kind. ``Persistable/propertyMapping``
    /// renames or skips them (`identifier` is skipped by default: it is stored with the document).
    ///
    /// ```swift
    /// class Shape: Persistable {
    ///     class var kind: String { "Shape" }
    ///     let identifier = UUID().uuidString
    ///     var label = ""
    ///     init() {}
    ///     required init?(with json: JSON, from persistence: Persistence) throws {
    ///         label = try PropertyReader(json, from: persistence).value("label")
    ///     }
    /// }
    /// try persistence.save(Shape())        // {"label": ""}
    /// ```
    ///
    /// Values are stored as ``PropertyReader`` reads them back: `JSONRepresentable` values (strings,
    /// numbers, booleans, `Date` as ISO 8601 text, `URL`, `UUID`), `JSON`, optionals (`nil` as `null`),
    /// other `Persistable` objects and ``Lazy`` relationships as identifiers (a referenced object is
    /// saved too; a `Lazy` is not loaded), and arrays and string-keyed dictionaries of all these. A
    /// `lazy var` never read keeps the value the stored document has.
    ///
    /// - Throws: ``DocumentStoreError/unstorableProperty(identifier:kind:property:type:)`` for a
    ///   property of another type (nothing is written), ``DocumentStoreError/invalidValue(identifier:path:reason:)``
    ///   when two properties map to one key or a number is not finite, and what saving throws.
    public func saveStoredProperties(of object: some Persistable) throws {
        guard let context = currentContext() else {
            return try transaction { try $0.saveStoredProperties(of: object) }
        }
        // Called directly (Dali's `object.save(to:)`) as well as through `save(_:)`: a reference
        // back to this object must not save it again.
        _ = context.visit(IdentifierKey(object.identifier))
        var encoded = try PropertyEncoder.encode(object)
        if !encoded.unevaluatedLazyKeys.isEmpty, let stored = try snapshot(object.identifier),
           case .object(let storedFields) = stored.body {
            for key in encoded.unevaluatedLazyKeys { encoded.fields[key] = storedFields[key] }
        }
        for reference in encoded.references { try save(reference) }
        try save(object, document: .object(encoded.fields))
    }
}
