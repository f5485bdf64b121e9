import Foundation
import ModelPersistence

// DocumentData's example, copied unchanged from its article ("How Can Persistence File Work?"): a plain
// class, `@PersistedIgnore` on a line of its own. `OriginalExamplesTests` declares the same class, so
// the test process and this probe share one `SomeModel.storage.plist`.

@PersistedModel
class SomeModel {
    var string: String
    var bool: Bool
    @PersistedIgnore
    var bool2: Bool

    init(string: String, bool: Bool, bool2: Bool) {
        self.string = string
        self.bool = bool
        self.bool2 = bool2
    }
}

/// The article's last line, `SomeModel(string: "hello", bool: false, bool2: true)`, as an expression (a
/// statement of its own would be an unused result).
func originalExample() -> SomeModel {
    SomeModel(string: "hello", bool: false, bool2: true)
}

/// The `some-model-*` commands, on DocumentData's `SomeModel` (the article's values, which a file wins over):
///
///     some-model-show FOLDER              prints "url PATH", "string S", "bool B", "bool2 B"
///     some-model-set FOLDER STRING BOOL   sets `string` and `bool` (two durable sets); prints "ok"
///
/// FOLDER `-` binds no folder: the model uses its default one, application support. The same commands
/// spelled `some-model-dd-show` and `some-model-dd-set` first set `PersistenceLocation.processFolder` to
/// DocumentData's folder, as an app moving from DocumentData does at launch.
func runSomeModelCommand(_ command: String, folder: String, _ arguments: [String]) -> Int32 {
    var command = command
    if command.hasPrefix("some-model-dd-") {
        PersistenceLocation.processFolder = PersistenceLocation.documentDataFolder
        command = "some-model-" + command.dropFirst("some-model-dd-".count)
    }
    let location = folder == "-" ? nil : URL(fileURLWithPath: folder, isDirectory: true)
    let model = PersistenceLocation.$folder.withValue(location) { () -> SomeModel in
        let model = originalExample()
        _ = model.string   // the first use, inside the binding: writes the file, or loads it
        return model
    }
    switch command {
    case "some-model-show":
        guard arguments.isEmpty else { usage("some-model-show FOLDER") }
        say("url \(model._$persistence.url?.path ?? "none")")
        say("string \(model.string)")
        say("bool \(model.bool)")
        say("bool2 \(model.bool2)")
    case "some-model-set":
        guard arguments.count == 2, let bool = Bool(arguments[1]) else { usage("some-model-set FOLDER STRING true|false") }
        model.string = arguments[0]
        model.bool = bool
        say("ok")
    default:
        usage("unknown command \(command)")
    }
    return ProbeErrors.count > 0 ? 1 : 0
}
