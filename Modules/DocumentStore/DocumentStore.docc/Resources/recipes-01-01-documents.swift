import DocumentStore
import Foundation

/// A recipe, stored as `{"title": "Pancakes", "minutes": 20, "tags": ["sweet", "vegetarian"]}`.
final class Recipe: Persistable {
    static let kind = "Recipe"
    var identifier = UUID().uuidString
    var title: String
    var minutes: Int
    var tags: [String]

    init(title: String, minutes: Int, tags: [String]) {
        self.title = title
        self.minutes = minutes
        self.tags = tags
    }

    init?(with json: JSON, from persistence: Persistence) throws {
        guard let title: String = "title" <~~ json, let minutes: Int = "minutes" <~~ json else { return nil }
        self.title = title
        self.minutes = minutes
        tags = "tags" <~~ json ?? []
    }

    func save(to: Persistence) throws {
        try to.save(self, json: ["title": title, "minutes": minutes, "tags": tags])
    }
}
