import DocumentStore
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

let laptop = try openStore("laptop")

// One save writes the note and its notebook, in one transaction.
let ideas = Notebook(name: "Ideas")
let note = Note(title: "Groceries", text: "eggs", in: ideas)
try laptop.save(note)
print("saved \(note.identifier) at revision \(laptop.revision(of: note) ?? "-")")
