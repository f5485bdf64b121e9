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

/// A note in a notebook, stored as `{"title": …, "text": …, "notebook": <its identifier>}`.
final class Note: Persistable {
    static let kind = "Note"
    var identifier = UUID().uuidString
    var title: String
    var text: String
    /// Loaded from the store on first `get()`.
    let notebook: Lazy<Notebook>

    init(title: String, text: String, in notebook: Notebook) {
        self.title = title
        self.text = text
        self.notebook = Lazy(notebook)
    }

    init?(with json: JSON, from persistence: Persistence) throws {
        guard let title: String = "title" <~~ json, let text: String = "text" <~~ json else { return nil }
        self.title = title
        self.text = text
        notebook = Lazy(identifier: "notebook" <~~ json, in: persistence)
    }

    func save(to: Persistence) throws {
        // A notebook that was never loaded cannot have changed.
        if let notebook = notebook.loaded { try to.save(notebook) }
        try to.save(self, json: ["title": title, "text": text, "notebook": notebook.identifier])
    }
}
