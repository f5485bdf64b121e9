import DocumentStore
import Foundation

/// A notebook, stored as `{"name": "Ideas"}`.
final class Notebook: Persistable {
    static let kind = "Notebook"
    var identifier = UUID().uuidString
    var name: String

    init(name: String) {
        self.name = name
    }

    init?(with json: JSON, from persistence: Persistence) throws {
        guard let name: String = "name" <~~ json else { return nil }
        self.name = name
    }

    func save(to: Persistence) throws {
        try to.save(self, json: ["name": name])
    }
}
