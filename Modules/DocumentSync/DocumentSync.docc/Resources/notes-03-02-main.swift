import DocumentStore
import DocumentSync
import Foundation

/// Opens one machine's store, `notes-demo/<machine>/Notes.sqlite`, and registers the kinds it loads.
func openStore(_ machine: String) throws -> Persistence {
    let url = URL(fileURLWithPath: "notes-demo", isDirectory: true)
        .appendingPathComponent(machine)
        .appendingPathComponent("Notes.sqlite")
    let persistence = try Persistence(url: url)
    persistence.register(persistableKind: Notebook.self)
    persistence.register(persistableKind: Note.self)
    return persistence
}

/// One synchronization of a machine's store: push its changes, then pull everyone else's.
func sync(_ machine: String, _ store: Persistence, _ configuration: DocumentSync.Configuration) async throws {
    let report = try await DocumentSync(persistence: store, configuration: configuration).run()
    print("\(machine): \(report)")
}

// Two machines, each with its own store: both work offline.
let laptop = try openStore("laptop")
let desktop = try openStore("desktop")

// One save writes the note and its notebook, in one transaction.
let ideas = Notebook(name: "Ideas")
let note = Note(title: "Groceries", text: "eggs", in: ideas)
try laptop.save(note)
print("saved \(note.identifier) at revision \(laptop.revision(of: note) ?? "-")")

// The server: `ci/postgres start` wrote its address, password included, to DIR/url.
guard let serverURL = ProcessInfo.processInfo.environment["TOOLKIT_POSTGRES_URL"] else {
    print("set TOOLKIT_POSTGRES_URL to the address of a PostgreSQL server")
    exit(1)
}
let configuration = DocumentSync.Configuration(address: try PostgresAddress(url: serverURL), schema: "notes")

// Push the laptop's changes, then pull them on the desktop.
try await sync("laptop", laptop, configuration)
try await sync("desktop", desktop, configuration)
