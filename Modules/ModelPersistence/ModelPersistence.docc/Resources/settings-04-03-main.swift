import FileStorageKit
import Foundation
import ModelPersistence

// ~/.local/share/Notes on Linux, ~/Library/Application Support/Notes on Apple platforms,
// $PERSISTENCE_TOOLKIT_ROOT/ApplicationSupport when that variable is set.
let directories = AppDirectories(appName: "Notes")
let folder = try directories.applicationSupport(creating: true)

// Once, at launch, before any model is used: every model of the process keeps its file here.
PersistenceLocation.processFolder = folder

let settings = NotesSettings()
// A get reads memory; the first use loads the file, or writes it when there is none.
print("theme \(settings.theme), \(settings.fontSize) pt, in \(NotesSettings.url.path)")

// Read, change and write under the file's lock, like PlistFileStorage's update(at:).
try settings.update { $0.launches += 1 }
print("launch \(settings.launches)")
