import Foundation

/// The body the default `save(to:)` writes: an object's stored properties, read with `Mirror` (the
/// class's own and every superclass's), named by its `propertyMapping`.
///
/// Values: `JSON`; anything `JSONRepresentable` (strings, numbers, booleans, `Date`, `URL`, `UUID`,
/// arrays and string-keyed dictionaries of them); optionals (`nil` is `null`); other `Persistable`
/// objects, stored as their identifiers and saved in the same transaction; ``Lazy`` relationships,
/// stored as their identifiers without loading them; and arrays and string-keyed dictionaries of all
/// of these. Anything else is ``DocumentStoreError/unstorableProperty(identifier:kind:property:type:)``.
struct PropertyEncoder {
    /// The body's fields.
    var fields: [String: JSON] = [:]
    /// The `Persistable` objects the properties refer to (to save with the object).
    var references: [any Persistable] = []
    /// Keys of `lazy var` properties never read: their value is unknown, so the save keeps the one
    /// the stored document has.
    var unevaluatedLazyKeys: [String] = []

    private let identifier: String
    private let kind: String
    /// The property each key came from, to report two properties saved under one key.
    private var owners: [String: String] = [:]

    /// The Swift runtime's label for a `lazy var`'s storage (an optional that is `nil` until read).
    private static let lazyStoragePrefix = "$__lazy_storage_$_"

    private init(identifier: String, kind: String) {
        self.identifier = identifier
        self.kind = kind
    }

    /// Reads `object`'s stored properties.
    static func encode(_ object: some Persistable) throws(DocumentStoreError) -> PropertyEncoder {
        var encoder = PropertyEncoder(identifier: object.identifier, kind: type(of: object).kind)
        let mapping = object.propertyMapping
        var mirror: Mirror? = Mirror(reflecting: object)
        while let level = mirror {
            for child in level.children {
                try encoder.add(child, mapping: mapping)
            }
            mirror = level.superclassMirror
        }
        return encoder
    }

    private mutating func add(_ child: Mirror.Child, mapping: [String: String?]) throws(DocumentStoreError) {
        guard var label = child.label else {
            throw .unstorableProperty(identifier: identifier, kind: kind, property: "(unnamed)", type: "\(type(of: child.value))")
        }
        var value = child.value
        let isLazy = label.hasPrefix(Self.lazyStoragePrefix)
        if isLazy { label.removeFirst(Self.lazyStoragePrefix.count) }
        let key: String
        if let mapped = mapping[label] {
            guard let mapped else { return }
            key = mapped
        } else {
            key = label
        }
        if let owner = owners[key] {
            throw .invalidValue(identifier: identifier, path: key,
                                reason: "\(kind).\(owner) and \(kind).\(label) are both saved under this key; rename one in propertyMapping")
        }
        owners[key] = label
        if isLazy {
            // The storage is `Optional<Property>`: `nil` means the initializer never ran.
            guard let evaluated = (value as? any OptionalValue)?.wrappedAny else {
                unevaluatedLazyKeys.append(key)
                return
            }
            value = evaluated
        }
        fields[key] = try encode(value, path: label)
    }

    private mutating func encode(_ value: Any, path: String) throws(DocumentStoreError) -> JSON {
        // Optionals first: a cast through `Any` would look inside them.
        if let optional = value as? any OptionalValue {
            guard let wrapped = optional.wrappedAny else { return .null }
            return try encode(wrapped, path: path)
        }
        if let json = value as? JSON { return json }
        if let object = value as? any Persistable {
            references.append(object)
            return .string(object.identifier)
        }
        if let relationship = value as? any LazyRelationship {
            if let loaded = relationship.loadedTarget { references.append(loaded) }
            return relationship.identifier.map(JSON.string) ?? .null
        }
        if let representable = value as? any JSONRepresentable { return representable.jsonValue }
        if let array = value as? [Any] {
            var items: [JSON] = []
            items.reserveCapacity(array.count)
            for (index, item) in array.enumerated() { items.append(try encode(item, path: "\(path)[\(index)]")) }
            return .array(items)
        }
        if let dictionary = value as? [String: Any] {
            var object: [String: JSON] = [:]
            for (key, item) in dictionary { object[key] = try encode(item, path: "\(path).\(key)") }
            return .object(object)
        }
        throw .unstorableProperty(identifier: identifier, kind: kind, property: path, type: "\(type(of: value))")
    }
}

/// An optional seen through `Any`, so `nil` can be told from a value.
protocol OptionalValue {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalValue {
    var wrappedAny: Any? { self.map { $0 as Any } }
}

/// A ``Lazy`` seen without its type parameter.
protocol LazyRelationship {
    var identifier: String? { get }
    var loadedTarget: (any Persistable)? { get }
}

extension Lazy: LazyRelationship {
    var loadedTarget: (any Persistable)? { loaded }
}
