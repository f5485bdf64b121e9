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
try storage.write(Settings(theme: "dark", fontSize: 13), to: url)
let settings: Settings = try storage.data(for: url)
print("theme \(settings.theme), \(settings.fontSize) pt")
