import DocumentStore
import Foundation

/// A counter for read-modify-save races between processes.
public final class Counter: Persistable {
    public static let kind = "Counter"
    public var identifier: String
    public var value: Int

    public init(identifier: String, value: Int) {
        self.identifier = identifier
        self.value = value
    }

    public init?(with json: JSON, from persistence: Persistence) throws {
        guard let value: Int = "value" <~~ json else { return nil }
        identifier = ""
        self.value = value
    }

    public func save(to: Persistence) throws {
        try to.save(self, json: ["value": value])
    }
}

/// A document whose body is whatever JSON the test gives it (for queries over random documents).
public final class Item: Persistable {
    public static let kind = "Item"
    public var identifier: String
    public var body: JSON

    public init(identifier: String, body: JSON) {
        self.identifier = identifier
        self.body = body
    }

    public init?(with json: JSON, from persistence: Persistence) throws {
        identifier = ""
        body = json
    }

    public func save(to: Persistence) throws {
        try to.save(self, document: body)
    }
}

/// The `Codable` path: no hand-written JSON.
public final class Note: CodablePersistable {
    public static let kind = "Note"
    public var identifier = UUID().uuidString
    public var text: String
    public var tags: [String]
    public var created: Date
    public var link: URL?
    public var attachment: Data?

    public init(text: String, tags: [String], created: Date, link: URL? = nil, attachment: Data? = nil) {
        self.text = text
        self.tags = tags
        self.created = created
        self.link = link
        self.attachment = attachment
    }
}

/// A lazily loaded relationship through `Lazy`, which reports a missing target instead of crashing.
public final class Label: Persistable {
    public static let kind = "Label"
    public var identifier = UUID().uuidString
    public let text: String
    public let square: Lazy<Square>

    public init(text: String, square: Square?) {
        self.text = text
        self.square = Lazy(square)
    }

    public init?(with json: JSON, from persistence: Persistence) throws {
        guard let text: String = "text" <~~ json else { return nil }
        self.text = text
        square = Lazy(identifier: "square" <~~ json, in: persistence)
    }

    public func save(to: Persistence) throws {
        if let square = square.loaded { try to.save(square) }
        try to.save(self, json: ["text": text, "square": square.identifier])
    }
}

/// Two nodes that refer to each other: a cycle the store's driven saves end.
public final class Node: Persistable {
    public static let kind = "Node"
    public var identifier: String
    public var name: String
    public var next: Lazy<Node>

    public init(identifier: String, name: String) {
        self.identifier = identifier
        self.name = name
        next = Lazy(nil)
    }

    public init?(with json: JSON, from persistence: Persistence) throws {
        guard let name: String = "name" <~~ json else { return nil }
        identifier = ""
        self.name = name
        next = Lazy(identifier: "next" <~~ json, in: persistence)
    }

    public func save(to: Persistence) throws {
        if let next = next.loaded { try to.save(next) }
        try to.save(self, json: ["name": name, "next": next.identifier])
    }
}

/// A node that loads its partner eagerly: a cycle of eager loads, which the store reports.
public final class EagerNode: Persistable {
    public static let kind = "EagerNode"
    public var identifier: String
    public var partner: EagerNode?

    public init(identifier: String) { self.identifier = identifier }

    public init?(with json: JSON, from persistence: Persistence) throws {
        identifier = ""
        partner = try persistence.load("partner" <~~ json)
    }

    public func save(to: Persistence) throws {
        if let partner { try to.save(partner) }
        try to.save(self, json: ["partner": partner?.identifier])
    }
}
