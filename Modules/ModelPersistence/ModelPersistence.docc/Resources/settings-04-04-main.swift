import FileStorageKit
import Foundation
import ModelPersistence

// ~/.local/share/Notes on Linux, ~/Library/Application Support/Notes on Apple platforms,
// $PERSISTENCE_TOOLKIT_ROOT/ApplicationSupport when that variable is set.
let directories = AppDirectories(appName: "Notes")
let folder = try directories.applicationSupport(creating: true)

// Once, at launch, before any model is used: every model of the process keeps its file here.
PersistenceLocation.processFolder = folder

// Setters cannot throw: every failure (a full disk, a damaged file moved aside) comes here.
PersistenceErrors.handler = { error in
    print("settings: \(error)")
}

let settings = NotesSettings()
// A get reads memory; the first use loads the file, or writes it when there is none.
print("theme \(settings.theme), \(settings.fontSize) pt, in \(NotesSettings.url.path)")

// Read, change and write under the file's lock, like PlistFileStorage's update(at:).
try settings.update { $0.launches += 1 }
print("launch \(settings.launches)")

// Each set is one durable write; a batch makes its sets one write at the end.
settings.withBatch { settings in
    settings.theme = "dark"
    settings.fontSize = 14
}
settings.searchText = "groceries"   // @PersistedIgnored: memory only, nothing written
if let error = settings.persistenceError {
    print("the last write failed: \(error)")
}
