import FileStorageKit
import Foundation
import StateGraph
import Testing
import TestSupport

/// The `settings` app, run as a program (the binary `swift build --build-tests` put beside the tests),
/// each run with `--folder` set to the test's own folder.
@Suite("settings app")
struct SettingsAppTests {
    /// What one run printed and how it ended.
    struct Run: CustomStringConvertible {
        let arguments: [String]
        let termination: ChildTermination
        let output: String
        let errors: String

        /// `Model.property = value` lines, as a dictionary.
        var values: [String: String] {
            var result: [String: String] = [:]
            for line in output.split(separator: "\n") {
                let parts = line.split(separator: " = ", maxSplits: 1, omittingEmptySubsequences: false)
                if parts.count == 2 { result[String(parts[0])] = String(parts[1]) }
            }
            return result
        }

        var description: String { "settings \(arguments.joined(separator: " ")): \(termination)\nstdout: \(output)\nstderr: \(errors)" }
    }

    /// `settings`, next to the test executable.
    static func executable() throws -> URL {
        try ChildProcess.builtProgram("settings")
    }

    /// Runs `settings <subcommand> --folder <folder> <rest>` and waits for it to end.
    func settings(_ subcommand: String, _ rest: String..., folder: TemporaryFolder) async throws -> Run {
        let arguments = [subcommand, "--folder", folder.url.path] + rest
        let child = try ChildProcess.start(try Self.executable(), arguments)
        let termination = try await child.waitForExit(deadline: .now + .seconds(60))
        return Run(arguments: arguments, termination: termination, output: child.standardOutput, errors: child.standardError)
    }

    @Test("show prints the defaults and the computed values; set changes them for the next process")
    func showAndSet() async throws {
        let folder = try TemporaryFolder(prefix: "state-graph-app")
        let first = try await settings("show", folder: folder)
        #expect(first.termination == .exited(0), "\(first)")
        #expect(first.values["AppConfigurationModel.debugMode"] == "false")
        #expect(first.values["AppConfigurationModel.shouldShowDebugOptions"] == "false")
        #expect(first.values["UserPreferencesModel.displayName"] == "Anonymous User")
        #expect(first.values["AppConfigurationModel.effectiveAutoSaveInterval"] == "300")

        let set = try await settings("set", "debugMode", "true", folder: folder)
        #expect(set.termination == .exited(0), "\(set)")
        #expect(set.values["AppConfigurationModel.shouldShowDebugOptions"] == "true")
        #expect(set.values["AppConfigurationModel.effectiveAutoSaveInterval"] == "60")

        // A new process restores the value and agrees on the computed ones.
        let second = try await settings("show", folder: folder)
        #expect(second.values["AppConfigurationModel.debugMode"] == "true")
        #expect(second.values["AppConfigurationModel.shouldShowDebugOptions"] == "true")
        #expect(second.values["AppConfigurationModel.effectiveAutoSaveInterval"] == "60")
    }

    @Test("the app's files are what this process's models read")
    func sameFilesAsInProcessModels() async throws {
        let folder = try TemporaryFolder(prefix: "state-graph-app")
        _ = try await settings("set", "userName", "Ada", folder: folder)
        _ = try await settings("set", "selectedTheme", "Solar Dark", folder: folder)
        _ = try await settings("set", "autoSaveInterval", "120", folder: folder)
        GraphStorageLocation.$folder.withValue(folder.url) {
            GraphStorageLocation.$standardSuiteName.withValue("settings") {
                let preferences = UserPreferencesModel()
                #expect(preferences.displayName == "Ada")
                let theme = ThemeModel()
                #expect(theme.isDarkTheme)
                #expect(theme.selectedTheme.primaryColor == "#000000")
                let config = AppConfigurationModel()
                #expect(config.effectiveAutoSaveInterval == 120)
            }
        }
        #expect(FileManager.default.fileExists(atPath: folder.file("com.myapp.preferences.plist").path))
    }

    @Test("debugMode set by another process reaches this process's node and its dependents")
    func crossProcessFreshness() async throws {
        try await withSuiteFolder { folder in
            let config = AppConfigurationModel()
            #expect(!config.shouldShowDebugOptions)
            #expect(config.effectiveAutoSaveInterval == 300)
            let fired = Counter()
            withGraphTracking { _ = config.shouldShowDebugOptions } onChange: { fired.bump() }

            let run = try await settings("set", "debugMode", "true", folder: folder)
            #expect(run.termination == .exited(0), "\(run)")
            let seen = await eventually { config.shouldShowDebugOptions }
            #expect(seen, "the other process's write did not reach shouldShowDebugOptions within 15 s")
            #expect(config.debugMode)
            #expect(config.effectiveAutoSaveInterval == 60)
            let firedOnce = await eventually { fired.count == 1 }
            #expect(firedOnce, "the tracking closure fired \(fired.count) times")
        }
    }

    @Test("a watching process sees this process's write")
    func watcherSeesWrite() async throws {
        try await withSuiteFolder { folder in
            let child = try ChildProcess.start(try Self.executable(),
                                               ["watch", "--folder", folder.url.path, "--count", "1", "--timeout", "30"])
            _ = try await child.waitForLine(deadline: .now + .seconds(30), where: { $0 == "ready" })
            let config = AppConfigurationModel()
            config.enableExperimentalFeatures = true
            let termination = try await child.waitForExit(deadline: .now + .seconds(40))
            #expect(termination == .exited(0), "stdout: \(child.standardOutput)\nstderr: \(child.standardError)")
            #expect(child.standardOutput.contains("AppConfigurationModel.shouldShowDebugOptions = true"))
        }
    }

    @Test("the same theme set again by a new process rewrites nothing (UserTheme is not Equatable)")
    func sameThemeInANewProcess() async throws {
        let folder = try TemporaryFolder(prefix: "state-graph-app")
        let first = try await settings("set", "selectedTheme", "Solar Dark", folder: folder)
        #expect(first.termination == .exited(0), "\(first)")
        let before = try FileSnapshot(folder.file("settings.plist"))
        let second = try await settings("set", "selectedTheme", "Solar Dark", folder: folder)
        #expect(second.termination == .exited(0), "\(second)")
        #expect(second.values["ThemeModel.isDarkTheme"] == "true")
        #expect(try FileSnapshot(folder.file("settings.plist")) == before, "setting the theme the file holds rewrote it")
    }

    @Test("bad input exits 64 with a message and writes nothing")
    func badInput() async throws {
        let folder = try TemporaryFolder(prefix: "state-graph-app")
        let badValue = try await settings("set", "debugMode", "maybe", folder: folder)
        #expect(badValue.termination == .exited(64), "\(badValue)")
        #expect(badValue.errors.contains("debugMode takes true or false, not 'maybe'"))
        let badKey = try await settings("set", "volume", "3", folder: folder)
        #expect(badKey.termination == .exited(64), "\(badKey)")
        let entries = try folder.entries()
        #expect(entries.isEmpty, "a rejected command wrote \(entries)")
    }
}
