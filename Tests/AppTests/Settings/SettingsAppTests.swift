import Foundation
import SettingsKit
import SettingsModels
import StateGraph
import Testing
import TestSupport

/// The `settings` app: its commands run in-process with `--folder` set to the test's own folder, and
/// the built program where another process is the point.
@Suite("settings app")
struct SettingsAppTests {
    /// `Model.property = value` lines of `output`, as a dictionary.
    static func values(_ output: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: " = ", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 { result[String(parts[0])] = String(parts[1]) }
        }
        return result
    }

    /// Runs `settings <subcommand> --folder <folder> <rest>` in-process.
    func settings(_ subcommand: String, _ rest: String..., folder: TemporaryFolder) async -> CommandRun {
        await SettingsCommand.runCaptured([subcommand, "--folder", folder.url.path] + rest)
    }

    /// Runs the built `settings` program: `settings <subcommand> --folder <folder> <rest>`.
    func settingsProgram(_ subcommand: String, _ rest: String..., folder: TemporaryFolder) async throws -> ProgramRun {
        try await BuiltProgram.run("settings", [subcommand, "--folder", folder.url.path] + rest)
    }

    @Test("show prints the defaults and the computed values; set changes them for the next command")
    func showAndSet() async throws {
        let folder = try TemporaryFolder(prefix: "settings-app")
        let first = await settings("show", folder: folder)
        #expect(first.status == 0, "\(first)")
        let shown = Self.values(first.output)
        #expect(shown["AppConfigurationModel.debugMode"] == "false")
        #expect(shown["AppConfigurationModel.shouldShowDebugOptions"] == "false")
        #expect(shown["UserPreferencesModel.displayName"] == "Anonymous User")
        #expect(shown["AppConfigurationModel.effectiveAutoSaveInterval"] == "300")

        let set = await settings("set", "debugMode", "true", folder: folder)
        #expect(set.status == 0, "\(set)")
        #expect(Self.values(set.output)["AppConfigurationModel.shouldShowDebugOptions"] == "true")
        #expect(Self.values(set.output)["AppConfigurationModel.effectiveAutoSaveInterval"] == "60")

        // New models restore the value and agree on the computed ones.
        let second = Self.values(await settings("show", folder: folder).output)
        #expect(second["AppConfigurationModel.debugMode"] == "true")
        #expect(second["AppConfigurationModel.shouldShowDebugOptions"] == "true")
        #expect(second["AppConfigurationModel.effectiveAutoSaveInterval"] == "60")
        let get = await settings("get", "autoSaveInterval", folder: folder)
        #expect(get.status == 0 && get.output == "300\n", "\(get)")
    }

    @Test("the app's files are what this process's models read")
    func sameFilesAsInProcessModels() async throws {
        let folder = try TemporaryFolder(prefix: "settings-app")
        _ = await settings("set", "userName", "Ada", folder: folder)
        _ = await settings("set", "selectedTheme", "Solar Dark", folder: folder)
        _ = await settings("set", "autoSaveInterval", "120", folder: folder)
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

    @Test("debugMode set by another process (the built program) reaches this process's node and its dependents")
    func crossProcessFreshness() async throws {
        try await withSettingsFolder { folder in
            let config = AppConfigurationModel()
            #expect(!config.shouldShowDebugOptions)
            #expect(config.effectiveAutoSaveInterval == 300)
            let fired = Counter()
            withGraphObservationTracking { _ = config.shouldShowDebugOptions } onChange: { fired.bump() }

            let run = try await settingsProgram("set", "debugMode", "true", folder: folder)
            #expect(run.termination == .exited(0), "\(run)")
            let seen = await eventually { config.shouldShowDebugOptions }
            #expect(seen, "the other process's write did not reach shouldShowDebugOptions")
            #expect(config.debugMode)
            #expect(config.effectiveAutoSaveInterval == 60)
            let firedOnce = await eventually { fired.count == 1 }
            #expect(firedOnce, "the tracking closure fired \(fired.count) times")
        }
    }

    @Test("a watching process (the built program) sees this process's write")
    func watchingProcessSeesWrite() async throws {
        try await withSettingsFolder { folder in
            let child = try ChildProcess.start(try ChildProcess.builtProgram("settings"),
                                               ["watch", "--folder", folder.url.path, "--count", "1", "--timeout", "600"])
            _ = try await child.waitForLine(deadline: .now + .seconds(180), where: { $0 == "ready" })
            let config = AppConfigurationModel()
            config.enableExperimentalFeatures = true
            let termination = try await child.waitForExit(deadline: .now + .seconds(180))
            #expect(termination == .exited(0), "stdout: \(child.standardOutput)\nstderr: \(child.standardError)")
            #expect(child.standardOutput.contains("AppConfigurationModel.shouldShowDebugOptions = true"))
        }
    }

    @Test("watch in-process prints each change once, and gives up with status 1 after its timeout")
    func watchPrintsChangesAndTimesOut() async throws {
        let folder = try TemporaryFolder(prefix: "settings-app")
        // In one process a set can reach the watch twice (through the suite shared in the process, and
        // through the file's change delivery); the watch prints computed values only when they differ
        // from what it printed last, so --count 2 means these two changes.
        let watch = SettingsCommand.start(["watch", "--folder", folder.url.path, "--count", "2", "--timeout", "600"])
        try await watch.waitForLine(deadline: .now + .seconds(180)) { $0 == "ready" }
        #expect(await settings("set", "debugMode", "true", folder: folder).status == 0)
        try await watch.waitForLine(deadline: .now + .seconds(180)) { $0 == "AppConfigurationModel.shouldShowDebugOptions = true" }
        #expect(await settings("set", "userName", "Ada", folder: folder).status == 0)
        let status = try await watch.waitForExit(deadline: .now + .seconds(180))
        #expect(status == 0, "\(watch.captured.output)\n\(watch.captured.errors)")
        let blocks = watch.captured.output.components(separatedBy: "--\n")
        // "ready", the first change's lines, "--", the second's, "--".
        try #require(blocks.count == 3 && blocks[2].isEmpty, "\(watch.captured.output)")
        #expect(blocks[0].hasPrefix("ready\n") && blocks[0].contains("AppConfigurationModel.shouldShowDebugOptions = true")
                && blocks[0].contains("UserPreferencesModel.displayName = Anonymous User"), "\(watch.captured.output)")
        #expect(blocks[1].contains("UserPreferencesModel.displayName = Ada"), "\(watch.captured.output)")

        let quiet = await SettingsCommand.runCaptured(["watch", "--folder", folder.url.path, "--timeout", "0.2"])
        #expect(quiet.status == 1 && quiet.output == "ready\n", "\(quiet)")
    }

    @Test("a watch's task, cancelled, ends promptly")
    func cancelledWatchEnds() async throws {
        let folder = try TemporaryFolder(prefix: "settings-app")
        let watch = SettingsCommand.start(["watch", "--folder", folder.url.path, "--count", "5", "--timeout", "600"])
        try await watch.waitForLine(deadline: .now + .seconds(180)) { $0 == "ready" }
        watch.cancel()
        let status = try await watch.waitForExit(deadline: .now + .seconds(180))
        #expect(status == SettingsCommand.cancelledStatus, "\(watch.captured.errors)")
    }

    @Test("the same theme set again by a new process rewrites nothing (UserTheme is not Equatable)")
    func sameThemeInANewProcess() async throws {
        let folder = try TemporaryFolder(prefix: "settings-app")
        let first = try await settingsProgram("set", "selectedTheme", "Solar Dark", folder: folder)
        #expect(first.termination == .exited(0), "\(first)")
        let before = try FileSnapshot(folder.file("settings.plist"))
        let second = try await settingsProgram("set", "selectedTheme", "Solar Dark", folder: folder)
        #expect(second.termination == .exited(0), "\(second)")
        #expect(Self.values(second.output)["ThemeModel.isDarkTheme"] == "true")
        #expect(try FileSnapshot(folder.file("settings.plist")) == before, "setting the theme the file holds rewrote it")
    }

    @Test("bad input exits 64 with a message and writes nothing")
    func badInput() async throws {
        let folder = try TemporaryFolder(prefix: "settings-app")
        let badValue = await settings("set", "debugMode", "maybe", folder: folder)
        #expect(badValue.status == 64, "\(badValue)")
        #expect(badValue.errors.contains("debugMode takes true or false, not 'maybe'"))
        let badKey = await settings("set", "volume", "3", folder: folder)
        #expect(badKey.status == 64, "\(badKey)")
        let entries = try folder.entries()
        #expect(entries.isEmpty, "a rejected command wrote \(entries)")
    }

    @Test("a suite that cannot be written is reported on the command's standard error, with status 1")
    func unwritableSuite() async throws {
        let temp = try TemporaryFolder(prefix: "settings-app")
        let blocker = temp.file("not-a-folder")
        try Data("x".utf8).write(to: blocker)
        let set = await SettingsCommand.runCaptured(["set", "--folder", blocker.path, "debugMode", "true"])
        #expect(set.status == 1, "\(set)")
        #expect(set.errors.hasPrefix("settings: ") && set.errors.contains("debugMode") && set.errors.contains("cannot write"), "\(set)")
    }
}
