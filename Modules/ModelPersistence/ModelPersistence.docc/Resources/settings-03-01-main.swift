import FileStorageKit
import Foundation

/// What the app keeps between launches.
struct Settings: Codable {
    var theme = "light"
    var fontSize = 12.0
    var launches = 0
}

// ~/.local/share/Notes on Linux, ~/Library/Application Support/Notes on Apple platforms,
// $PERSISTENCE_TOOLKIT_ROOT/ApplicationSupport when that variable is set.
let directories = AppDirectories(appName: "Notes")
let folder = try directories.applicationSupport(creating: true)
let url = folder.appendingPathComponent("settings.plist")
print("settings file: \(url.path)")

let storage = PlistFileStorage()
var settings = Settings()
do {
    // Read, change and write under the file's lock: no other thread or process can slip in between.
    settings = try storage.update(at: url, default: Settings()) { $0.launches += 1 }
} catch FileStorageError.corrupt(let file, let problem) {
    // Not a property list: another program wrote it. update(at:) refused to write over it.
    let aside = try DurableFile.moveAside(file)
    print("\(file.lastPathComponent) is damaged (\(problem)); its bytes are kept in \(aside.lastPathComponent)")
    settings = try storage.update(at: url, default: Settings()) { $0.launches += 1 }
}
print("launch \(settings.launches), theme \(settings.theme), \(settings.fontSize) pt")

// The file is an XML property list: read its bytes the way every store does.
print(String(decoding: try DurableFile.read(url), as: UTF8.self))
