import ArgumentParser
import Foundation
import StateGraph
import Synchronization

/// `settings`: the StateGraph settings models as a command line.
@main
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Shows and changes the StateGraph settings models (kept in defaults suites).",
        discussion: """
            Settings: \(SettingsField.allCases.map { "\($0.rawValue) (\($0.valueHelp))" }.joined(separator: "; ")).

            Exit status: 0 on success, 64 for an unknown setting or a bad value, 1 when a suite could not \
            be written.
            """,
        subcommands: [Show.self, Get.self, SetValue.self, Watch.self],
        defaultSubcommand: Show.self)

    /// The suite `.userDefaults(key:)` means in this app, whatever the binary is called.
    static let standardSuiteName = "settings"
}

/// `--folder`, shared by every subcommand.
struct LocationOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Keep the suites in this folder (created on the first write).",
                                            discussion: "Default: the preferences folder of the program "
                                                + "(~/.config/settings on Linux).",
                                            valueName: "path"),
            completion: .directory)
    var folder: String?

    /// Makes the models in the chosen folder, runs `body`, and fails if a suite reported an error.
    func withModels<R>(_ body: (SettingsModels) throws -> R) throws -> R {
        let failures = Mutex<[GraphStorageError]>([])
        let previous = GraphStorageErrors.handler
        GraphStorageErrors.handler = { error in
            failures.withLock { $0.append(error) }
            FileHandle.standardError.write(Data("settings: \(error)\n".utf8))
        }
        defer { GraphStorageErrors.handler = previous }
        let url = folder.map { URL(fileURLWithPath: $0, isDirectory: true).standardizedFileURL }
        let result = try GraphStorageLocation.$folder.withValue(url) {
            try GraphStorageLocation.$standardSuiteName.withValue(SettingsCommand.standardSuiteName) {
                try body(SettingsModels())
            }
        }
        if failures.withLock({ $0.contains { $0.operation == .write } }) { throw ExitCode.failure }
        return result
    }
}

extension SettingsField: ExpressibleByArgument {}

extension SettingsCommand {
    /// `settings show`: every stored and computed value.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print every stored value, then every computed one.")

        @OptionGroup var location: LocationOptions

        func run() throws {
            try location.withModels { models in showLines(models).forEach { print($0) } }
        }
    }

    /// `settings get KEY`: one stored value.
    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print one setting's value, as `set` accepts it.")

        @OptionGroup var location: LocationOptions
        @Argument(help: "The setting: \(SettingsField.allValueStrings.joined(separator: ", ")).")
        var key: SettingsField

        func run() throws {
            try location.withModels { models in print(key.value(in: models)) }
        }
    }

    /// `settings set KEY VALUE`: one stored value, then the computed values.
    struct SetValue: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set one setting, then print the computed values.",
            discussion: SettingsField.allCases.map { "\($0.rawValue): \($0.valueHelp)" }.joined(separator: "\n"))

        @OptionGroup var location: LocationOptions
        @Argument(help: "The setting.") var key: SettingsField
        @Argument(help: "The new value.") var value: String

        func run() throws {
            try location.withModels { models in
                do {
                    try key.set(value, in: models)
                } catch let error as SettingsField.BadValue {
                    throw ValidationError(error.description)
                }
                showLines(models).dropFirst(SettingsField.allCases.count).forEach { print($0) }
            }
        }
    }

    /// `settings watch`: prints the computed values each time they change, from any process.
    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print `ready`, then the computed values each time a setting changes (here or in another process).")

        @OptionGroup var location: LocationOptions
        @Option(help: "Stop after this many changes.") var count: Int = 1
        @Option(help: "Give up after this many seconds.") var timeout: Double = 60

        func run() throws {
            try location.withModels { models in
                let changes = Mutex(0)
                let subscription = GraphSubscription({ showLines(models).dropFirst(SettingsField.allCases.count).joined(separator: "\n") },
                                                     onChange: { lines in
                    print(lines)
                    print("--")
                    fflush(nil)
                    changes.withLock { $0 += 1 }
                })
                print("ready")
                fflush(nil)
                let deadline = Date().addingTimeInterval(timeout)
                while changes.withLock({ $0 }) < count {
                    guard Date() < deadline else { throw ExitCode.failure }
                    usleep(5_000)
                }
                subscription.cancel()
            }
        }
    }
}
