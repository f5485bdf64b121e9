import DocumentStore
import Foundation

/// A cookbook, stored as its `Codable` form: no hand-written JSON.
final class Cookbook: CodablePersistable {
    static let kind = "Cookbook"
    var identifier = UUID().uuidString
    var name: String
    var author: String

    init(name: String, author: String) {
        self.name = name
        self.author = author
    }
}

/// A recipe, stored as `{"title": "Pancakes", "minutes": 20, "tags": [...], "cookbook": <its identifier>}`.
final class Recipe: Persistable {
    static let kind = "Recipe"
    var identifier = UUID().uuidString
    var title: String
    var minutes: Int
    var tags: [String]
    /// Loaded with the recipe; `nil` when the recipe has none, or when its cookbook was deleted.
    let cookbook: Cookbook?

    init(title: String, minutes: Int, tags: [String], in cookbook: Cookbook?) {
        self.title = title
        self.minutes = minutes
        self.tags = tags
        self.cookbook = cookbook
    }

    init?(with json: JSON, from persistence: Persistence) throws {
        guard let title: String = "title" <~~ json, let minutes: Int = "minutes" <~~ json else { return nil }
        self.title = title
        self.minutes = minutes
        tags = "tags" <~~ json ?? []
        cookbook = try persistence.load(Cookbook.self, "cookbook" <~~ json)
    }

    func save(to: Persistence) throws {
        if let cookbook { try to.save(cookbook) }
        try to.save(self, json: ["title": title, "minutes": minutes, "tags": tags, "cookbook": cookbook?.identifier])
    }
}
