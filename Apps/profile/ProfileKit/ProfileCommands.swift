import ArgumentParser
import CommandSupport
import Foundation
import ModelPersistence

/// `profile`: shows and changes a user profile kept by `@PersistedModel` in `UserProfile.storage.plist`.
///
/// ```swift
/// let status = await ProfileCommand.run(arguments: ["set", "name", "Ada", "--folder", path], streams: .standard)
/// ```
///
/// `Command/main.swift` runs it as the `profile` program; the tests run it in-process.
public struct ProfileCommand: ParsableCommand {
    /// The command's name, help and subcommands: `show`, `get`, `set`, `increment`, `reset`, `path`.
    public static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Keeps a user profile in UserProfile.storage.plist (a @PersistedModel class).",
        discussion: """
            Fields: \(ProfileField.allCases.map { "\($0.rawValue) (\($0.valueHelp))" }.joined(separator: "; ")).

            Exit status: 0 on success, 64 for an unknown key or a bad value, 1 when the file could not \
            be read or written. A corrupt file is moved aside (a warning), and the command goes on with \
            the defaults.
            """,
        subcommands: [Show.self, Get.self, SetField.self, Increment.self, Reset.self, Path.self],
        defaultSubcommand: Show.self)

    /// The command with no arguments parsed; `ProfileCommand.run(arguments:streams:)` parses and runs it.
    public init() {}
}

extension ProfileCommand {
    /// `profile show`: every field, then the file.
    struct Show: StreamingCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print every field and the file's path (the first use writes the file with the defaults).")

        @OptionGroup var location: LocationOptions

        func run(_ streams: CommandStreams) async throws {
            try location.withProfile(streams) { profile in
                let width = ProfileField.allCases.map(\.rawValue.count).max() ?? 0
                for field in ProfileField.allCases {
                    let key = field.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)
                    streams.print("\(key)  \(ProfileCommand.display(field.value(in: profile)))")
                }
                streams.print("file" + String(repeating: " ", count: max(width - 4, 0)) + "  \(UserProfile.url.path)")
            }
        }
    }

    /// `profile get KEY`: one field, unquoted, for scripts.
    struct Get: StreamingCommand {
        static let configuration = CommandConfiguration(abstract: "Print one field's value, as `set` accepts it.")

        @OptionGroup var location: LocationOptions
        @Argument(help: "The field: \(ProfileField.allValueStrings.joined(separator: ", ")).") var key: ProfileField

        func run(_ streams: CommandStreams) async throws {
            try location.withProfile(streams) { profile in streams.print(ProfileField.format(key.value(in: profile))) }
        }
    }

    /// `profile set KEY VALUE`: one field, written atomically together with `lastUpdated`.
    struct SetField: StreamingCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set one field, converting VALUE to the field's type.",
            discussion: """
                \(ProfileField.allCases.map { "\($0.rawValue): \($0.valueHelp)" }.joined(separator: "\n"))

                Setting any field but lastUpdated also sets lastUpdated to now, in the same write. \
                Put `--` before a value that starts with a dash.
                """)

        @OptionGroup var location: LocationOptions
        @Argument(help: "The field: \(ProfileField.allValueStrings.joined(separator: ", ")).") var key: ProfileField
        @Argument(help: "The new value.") var value: String

        func validate() throws {
            _ = try key.parse(value)
        }

        func run(_ streams: CommandStreams) async throws {
            let newValue = try key.parse(value)
            try location.withProfile(streams) { profile in
                try profile.update { profile in
                    key.assign(newValue, to: profile)
                    if key != .lastUpdated { profile.lastUpdated = Date() }
                }
                streams.print("\(key.rawValue) = \(ProfileCommand.display(key.value(in: profile)))")
            }
        }
    }

    /// `profile increment launches`: an atomic read-modify-write, safe across processes.
    struct Increment: StreamingCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add to a counter under the file's lock (atomic across processes) and print the result.")

        @OptionGroup var location: LocationOptions
        @Argument(help: "The counter: launches.") var key: ProfileField
        @Option(parsing: .unconditional, help: "How much to add (may be negative; the result must stay 0 or more).")
        var by: Int = 1

        func validate() throws {
            guard key.counter != nil else {
                throw ValidationError("only launches can be incremented, not \(key.rawValue) (\(key.valueHelp))")
            }
        }

        func run(_ streams: CommandStreams) async throws {
            guard let counter = key.counter else { throw ExitCode.validationFailure }
            let by = self.by
            let result = try location.withProfile(streams) { profile in
                // Checked before anything is set, so a refused increment writes nothing.
                try profile.update { profile -> Int? in
                    let (sum, overflow) = profile[keyPath: counter].addingReportingOverflow(by)
                    guard !overflow, sum >= 0 else { return nil }
                    profile[keyPath: counter] = sum
                    profile.lastUpdated = Date()
                    return sum
                }
            }
            guard let result else {
                throw CommandFailure("error: \(key.rawValue) must stay between 0 and \(Int.max); adding \(by) would leave that range",
                                     status: ExitCode.validationFailure.rawValue)
            }
            streams.print(String(result))
        }
    }

    /// `profile reset`: removes the file.
    struct Reset: StreamingCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the profile's file; the next command starts again from the defaults.")

        @OptionGroup var location: LocationOptions

        func run(_ streams: CommandStreams) async throws {
            try location.withLocation {
                let url = UserProfile.url
                let existed = UserProfile.isPersisted
                try UserProfile.delete()
                streams.print(existed ? "removed \(url.path)" : "no profile at \(url.path)")
            }
        }
    }

    /// `profile path`: where the file is (nothing is read or written).
    struct Path: StreamingCommand {
        static let configuration = CommandConfiguration(abstract: "Print the path of the profile's file.")

        @OptionGroup var location: LocationOptions

        func run(_ streams: CommandStreams) async throws {
            try location.withLocation { streams.print(UserProfile.url.path) }
        }
    }

    /// `value` as `show` prints it: text in quotes, so empty text and spaces are visible.
    static func display(_ value: ProfileField.Value) -> String {
        if case .text(let text) = value {
            return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return ProfileField.format(value)
    }
}
