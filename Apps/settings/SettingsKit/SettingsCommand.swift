import ArgumentParser
import CommandSupport
import Foundation
import SettingsModels
import StateGraph
import Synchronization

/// `settings`: the StateGraph settings models of swift-state-graph's article as a command line.
///
/// ```swift
/// let status = await SettingsCommand.run(arguments: ["set", "debugMode", "true", "--folder", path], streams: .standard)
/// ```
///
/// `Command/main.swift` runs it as the `settings` program; the tests run it in-process.
public struct SettingsCommand: ParsableCommand {
    /// The command's name, help and subcommands: `show`, `get`, `set`, `watch`.
    public static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Shows and changes the StateGraph settings models (kept in defaults suites).",
        discussion: """
            Settings: \(SettingsField.allCases.map { "\($0.rawValue) (\($0.valueHelp))" }.joined(separator: "; ")).

            Exit status: 0 on success, 64 for an unknown setting or a bad value, 1 when a suite could not \
            be written or `watch` saw too few changes before its timeout.
            """,
        subcommands: [Show.self, Get.self, SetValue.self, Watch.self],
        defaultSubcommand: Show.self)

    /// The suite `.userDefaults(key:)` means in this app, whatever the binary is called.
    public static let standardSuiteName = "settings"

    /// The command with no arguments parsed; `SettingsCommand.run(arguments:streams:)` parses and runs it.
    public init() {}
}

/// `--folder`, shared by every subcommand.
struct LocationOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Keep the suites in this folder (created on the first write).",
                                            discussion: "Default: the preferences folder of the program "
                                                + "(~/.config/settings on Linux).",
                                            valueName: "path"),
            completion: .directory)
    var folder: String?

    /// Makes the models in the chosen folder, runs `body`, and fails if a suite reported a write error.
    /// Every error a suite reports meanwhile is printed on `streams` as `settings: <error>`.
    func withModels<R>(_ streams: CommandStreams, _ body: (SettingsModelSet) async throws -> R) async throws -> R {
        _ = SettingsErrorLog.routeReportedErrors
        let failures = Mutex<[GraphStorageError]>([])
        let url = folder.map { URL(fileURLWithPath: $0, isDirectory: true).standardizedFileURL }
        let result = try await ReportedErrors.$receiver.withValue({ error in
            guard let error = error as? GraphStorageError else { return }
            failures.withLock { $0.append(error) }
            streams.printError("settings: \(error)")
        }) {
            try await GraphStorageLocation.$folder.withValue(url) {
                try await GraphStorageLocation.$standardSuiteName.withValue(SettingsCommand.standardSuiteName) {
                    try await body(SettingsModelSet())
                }
            }
        }
        if failures.withLock({ $0.contains { $0.operation == .write } }) { throw ExitCode.failure }
        return result
    }
}

/// Routes `GraphStorageErrors` to the command whose task hit them.
enum SettingsErrorLog {
    /// Installs, once per process, the `GraphStorageErrors` handler that hands each error to the
    /// command whose task hit it (``ReportedErrors``), and to the handler it replaced otherwise.
    static let routeReportedErrors: Void = {
        let previous = GraphStorageErrors.handler
        GraphStorageErrors.handler = { error in
            if !ReportedErrors.forward(error) { previous(error) }
        }
    }()
}

extension SettingsField: ExpressibleByArgument {}

extension SettingsCommand {
    /// `settings show`: every stored and computed value.
    struct Show: StreamingCommand {
        static let configuration = CommandConfiguration(abstract: "Print every stored value, then every computed one.")

        @OptionGroup var location: LocationOptions

        func run(_ streams: CommandStreams) async throws {
            try await location.withModels(streams) { models in showLines(models).forEach { streams.print($0) } }
        }
    }

    /// `settings get KEY`: one stored value.
    struct Get: StreamingCommand {
        static let configuration = CommandConfiguration(abstract: "Print one setting's value, as `set` accepts it.")

        @OptionGroup var location: LocationOptions
        @Argument(help: "The setting: \(SettingsField.allValueStrings.joined(separator: ", ")).")
        var key: SettingsField

        func run(_ streams: CommandStreams) async throws {
            try await location.withModels(streams) { models in streams.print(key.value(in: models)) }
        }
    }

    /// `settings set KEY VALUE`: one stored value, then the computed values.
    struct SetValue: StreamingCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set one setting, then print the computed values.",
            discussion: SettingsField.allCases.map { "\($0.rawValue): \($0.valueHelp)" }.joined(separator: "\n"))

        @OptionGroup var location: LocationOptions
        @Argument(help: "The setting.") var key: SettingsField
        @Argument(help: "The new value.") var value: String

        func run(_ streams: CommandStreams) async throws {
            try await location.withModels(streams) { models in
                do {
                    try key.set(value, in: models)
                } catch let error as SettingsField.BadValue {
                    throw ValidationError(error.description)
                }
                showLines(models).dropFirst(SettingsField.allCases.count).forEach { streams.print($0) }
            }
        }
    }

    /// `settings watch`: prints the computed values each time they change, from any process (a
    /// notification that leaves them as they were last printed prints nothing).
    ///
    /// Cancelling the task that runs it ends it at once (`CancellationError`).
    struct Watch: StreamingCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print `ready`, then the computed values each time a setting changes (here or in another process).")

        @OptionGroup var location: LocationOptions
        @Option(help: "Stop after this many changes.") var count: Int = 1
        @Option(help: "Give up after this many seconds (exit status 1).") var timeout: Double = 60

        func validate() throws {
            guard count >= 0 else { throw ValidationError("--count cannot be negative") }
            guard timeout.isFinite, timeout > 0 else { throw ValidationError("--timeout must be a positive number") }
        }

        func run(_ streams: CommandStreams) async throws {
            let (count, timeout) = (count, timeout)
            try await location.withModels(streams) { models in
                let (changes, continuation) = AsyncStream<String>.makeStream()
                let initial = Self.computedLines(models)
                let subscription = GraphSubscription({ Self.computedLines(models) }, onChange: { continuation.yield($0) })
                defer { subscription.cancel() }
                streams.print("ready")
                let seen = try await withTimeLimit(seconds: timeout) {
                    var seen = 0
                    var last = initial
                    guard count > 0 else { return seen }
                    // One change can arrive twice in a process that also writes the suite (through the
                    // suite object it shares, and through the file's change delivery): values the watch
                    // has printed already are not a change.
                    for await lines in changes where lines != last {
                        last = lines
                        streams.print(lines)
                        streams.print("--")
                        seen += 1
                        if seen == count { break }
                    }
                    return seen
                }
                if (seen ?? 0) < count { throw ExitCode.failure }
            }
        }

        /// The computed values' lines of `show`, as one text.
        private static func computedLines(_ models: SettingsModelSet) -> String {
            showLines(models).dropFirst(SettingsField.allCases.count).joined(separator: "\n")
        }
    }
}
