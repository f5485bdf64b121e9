import FileStorageKit
import Foundation
import PlistCodec
import SettingsModels
import StateGraph
import Testing
import TestSupport
// No `import Observation`: `withObservationTracking` must come with `import StateGraph`.

/// The code of swift-state-graph's "Backing Storage" article (OriginalExamples.swift), called from
/// synchronous and from `async` code, checked for what the article says: backed values persist
/// across instances and processes, computed values follow them, and equal values are not rewritten.
@Suite("Backing Storage article")
struct OriginalExamplesTests {
    /// The suite file `<name>.plist` in `folder`, parsed.
    func suiteFile(_ name: String, in folder: TemporaryFolder) throws -> PlistDictionary {
        let value = try PlistValue(parsing: try Data(contentsOf: folder.file("\(name).plist")))
        return try #require(value.dictionaryValue, "\(name).plist is not a dictionary")
    }

    @Test("storage types: memory by default; the standard suite and a named suite are files of their own")
    func storageTypes() throws {
        try withSuiteFolder { (folder) throws in
            let viewModel = ViewModel()
            viewModel.count += 1
            #expect(viewModel.count == 1)
            #expect(ViewModel().count == 0, "a memory node outlived its instance")
            #expect(try folder.entries().isEmpty, "a memory node wrote a file")

            let settings = SettingsModel()
            #expect(settings.theme == "light")
            settings.theme = "dark"
            settings.apiEndpoint = "https://api.staging.com"
            let relaunched = SettingsModel()
            #expect(relaunched.theme == "dark")
            #expect(relaunched.apiEndpoint == "https://api.staging.com")
            #expect(try suiteFile("settings", in: folder)["theme"] == .string("dark"))
            #expect(try suiteFile("com.myapp.settings", in: folder)["apiEndpoint"] == .string("https://api.staging.com"))
        }
    }

    /// The article's reactive examples, in a fresh folder.
    func reactivePersistence(in folder: TemporaryFolder) throws {
        let preferences = UserPreferencesModel()
        #expect(preferences.displayName == "Anonymous User")
        preferences.userName = "Ada"
        preferences.fontSize = 40
        #expect(preferences.displayName == "Ada")
        #expect(preferences.accessibilityFontSize == 32)
        preferences.fontSize = 8
        #expect(preferences.accessibilityFontSize == 12)

        let config = AppConfigurationModel()
        #expect(!config.shouldShowDebugOptions)
        #expect(config.effectiveAutoSaveInterval == 300)
        config.autoSaveInterval = 120
        #expect(config.effectiveAutoSaveInterval == 120)
        config.debugMode = true
        #expect(config.shouldShowDebugOptions)
        #expect(config.effectiveAutoSaveInterval == 60, "faster auto-save in debug mode")

        let newPreferences = UserPreferencesModel()
        #expect(newPreferences.userName == "Ada" && newPreferences.displayName == "Ada")
        #expect(newPreferences.accessibilityFontSize == 12)
        let newConfig = AppConfigurationModel()
        #expect(newConfig.debugMode && newConfig.shouldShowDebugOptions)
        #expect(newConfig.autoSaveInterval == 120 && newConfig.effectiveAutoSaveInterval == 60)
        #expect(try suiteFile("com.myapp.preferences", in: folder)["autoSaveInterval"] == .real(120))
        #expect(try suiteFile("settings", in: folder)["debugMode"] == .bool(true))
    }

    @Test("reactive persistence from synchronous code: computed values follow, a new instance restores")
    func reactivePersistenceSynchronously() throws {
        try withSuiteFolder { (folder) throws in try reactivePersistence(in: folder) }
    }

    @Test("reactive persistence from async code")
    func reactivePersistenceAsynchronously() async throws {
        try await withSuiteFolder { folder in
            let preferences = UserPreferencesModel()
            preferences.userName = "Grace"
            await Task.yield()
            #expect(preferences.displayName == "Grace")
            let config = AppConfigurationModel()
            config.enableExperimentalFeatures = true
            try await Task.sleep(for: .milliseconds(1))
            #expect(config.shouldShowDebugOptions)
            #expect(UserPreferencesModel().displayName == "Grace")
            #expect(AppConfigurationModel().shouldShowDebugOptions)
        }
        try withSuiteFolder { (folder) throws in try reactivePersistence(in: folder) }
    }

    @Test("the settings screen's and the profile view's bindings read and write the nodes")
    func bindingsAsTheViewsUseThem() throws {
        try withSuiteFolder { (_) throws in
            let model = AppConfigurationModel()
            let preferences = UserPreferencesModel()
            // Toggle("Debug Mode", isOn: model.$debugMode.binding), Slider(value: model.$autoSaveInterval.binding, ...)
            model.$debugMode.binding.value = true
            model.$autoSaveInterval.binding.value = 180
            #expect(model.shouldShowDebugOptions)
            #expect(model.$autoSaveInterval.binding.value == 180)
            // TextField("Enter your name", text: preferences.$userName.binding)
            preferences.$userName.binding.value = "Ada"
            #expect(preferences.displayName == "Ada")
            #expect(AppConfigurationModel().autoSaveInterval == 180)
            #expect(UserPreferencesModel().userName == "Ada")
        }
    }

    @Test("state restoration: the last document's path survives, so a new instance can restore the session")
    func stateRestoration() throws {
        try withSuiteFolder { (folder) throws in
            let editor = DocumentEditorModel()
            #expect(!editor.canRestoreSession)
            editor.editorSettings = ["tabWidth": "4", "wrapLines": "true"]
            editor.saveDocument(Document(path: "/notes/today.txt"), at: "/notes/today.txt")
            #expect(!editor.canRestoreSession, "a document is open")

            let relaunched = DocumentEditorModel()
            #expect(relaunched.lastOpenedDocumentPath == "/notes/today.txt")
            #expect(relaunched.currentDocument == nil, "the document itself is kept in memory only")
            #expect(relaunched.canRestoreSession)
            #expect(relaunched.editorSettings == ["tabWidth": "4", "wrapLines": "true"])

            relaunched.lastOpenedDocumentPath = nil
            #expect(try suiteFile("settings", in: folder)["lastOpenedDocument"] == nil, "nil did not remove the key")
            #expect(!DocumentEditorModel().canRestoreSession)
        }
    }

    @Test("configuration management: the environment picks the endpoint, a custom one wins, the timeout follows")
    func configurationManagement() throws {
        try withSuiteFolder { (folder) throws in
            let network = NetworkConfigurationModel()
            #expect(network.apiBaseURL == "https://api.myapp.com")
            #expect(network.requestConfiguration.timeoutIntervalForRequest == 30)
            network.environment = "staging"
            #expect(network.apiBaseURL == "https://api-staging.myapp.com")
            network.customEndpoints = ["staging": "https://staging.internal.example"]
            #expect(network.apiBaseURL == "https://staging.internal.example")
            network.timeoutInterval = 10
            #expect(network.requestConfiguration.timeoutIntervalForRequest == 10)
            #expect(network.requestConfiguration.timeoutIntervalForResource == 20)

            let relaunched = NetworkConfigurationModel()
            #expect(relaunched.apiBaseURL == "https://staging.internal.example")
            #expect(relaunched.requestConfiguration.timeoutIntervalForRequest == 10)
            let file = try suiteFile("com.myapp.network", in: folder)
            #expect(file["customEndpoints"] == .dictionary(["staging": .string("https://staging.internal.example")]))
        }
    }

    @Test("a Codable type (UserTheme) is stored as a dictionary and restored by a new instance")
    func customTypeSynchronously() throws {
        try withSuiteFolder { (folder) throws in
            let model = ThemeModel()
            #expect(!model.isDarkTheme)
            model.selectedTheme = UserTheme(name: "Midnight Dark", primaryColor: "#000000", accentColor: "#FFFFFF")
            #expect(model.isDarkTheme)
            let stored = try #require(try suiteFile("settings", in: folder)["selectedTheme"]?.dictionaryValue)
            #expect(stored.hasSameContents(as: ["name": .string("Midnight Dark"), "primaryColor": .string("#000000"),
                                                "accentColor": .string("#FFFFFF")]))
            let relaunched = ThemeModel()
            #expect(relaunched.selectedTheme.name == "Midnight Dark")
            #expect(relaunched.isDarkTheme)
        }
    }

    @Test("UserTheme is not Equatable: a set is one change, and setting an equal theme rewrites nothing")
    func customTypeIsNotRewritten() async throws {
        try await withSuiteFolder { folder in
            let model = ThemeModel()
            let node = model.$selectedTheme
            let changes = Counter()
            let subscription = GraphSubscription({ node.wrappedValue.name }, onChange: { _ in changes.bump() })
            model.selectedTheme = UserTheme(name: "Midnight Dark", primaryColor: "#000000", accentColor: "#FFFFFF")
            #expect(model.isDarkTheme)
            #expect(try await suiteSettled(in: folder), "the suite's watcher did not deliver a marker write")
            #expect(changes.count == 1, "the node's own write came back as a second change")

            let before = try FileSnapshot(folder.file("settings.plist"))
            let writes = node.suiteWriteCount
            model.selectedTheme = UserTheme(name: "Midnight Dark", primaryColor: "#000000", accentColor: "#FFFFFF")
            await Task.yield()
            model.selectedTheme = UserTheme(name: "Midnight Dark", primaryColor: "#000000", accentColor: "#FFFFFF")
            #expect(node.suiteWriteCount == writes, "an equal theme was written again")
            #expect(try FileSnapshot(folder.file("settings.plist")) == before, "an equal theme rewrote the file")
            #expect(changes.count == 1, "an equal theme was a change")
            #expect(ThemeModel().isDarkTheme)
            subscription.cancel()
        }
    }

    @Test("efficient updates: incrementIfNeeded writes once per change, the current value not at all")
    func efficientUpdates() throws {
        try withSuiteFolder { (_) throws in
            let model = PerformanceOptimizedModel()
            for _ in 0..<3 { model.incrementIfNeeded() }
            #expect(model.counter == 3)
            #expect(model.$counter.suiteWriteCount == 3)
            model.counter = 3
            #expect(model.$counter.suiteWriteCount == 3, "setting the current value wrote")
            #expect(PerformanceOptimizedModel().counter == 3)
        }
    }

    @Test("batch updates: updateProfile stores all three; inside withGraphBatch an observer hears one change")
    func batchUpdates() throws {
        try withSuiteFolder { (_) throws in
            let model = ProfileModel()
            let (first, last, email) = (model.$firstName, model.$lastName, model.$email)
            let changes = Counter()
            let subscription = GraphSubscription({ "\(first.wrappedValue) \(last.wrappedValue) <\(email.wrappedValue)>" },
                                                 onChange: { _ in changes.bump() })
            withGraphBatch {
                model.updateProfile(firstName: "Ada", lastName: "Lovelace", email: "ada@example.com")
            }
            #expect(changes.count == 1)
            // Without a batch, each of the three sets is a change of its own (and a write of its own).
            model.updateProfile(firstName: "Grace", lastName: "Hopper", email: "grace@example.com")
            #expect(changes.count == 4)
            let relaunched = ProfileModel()
            #expect([relaunched.firstName, relaunched.lastName, relaunched.email] == ["Grace", "Hopper", "grace@example.com"])
            subscription.cancel()
        }
    }

    @Test("best practices: namespaced keys, a suite per area, the defaults until something is set")
    func bestPractices() throws {
        try withSuiteFolder { (folder) throws in
            let robust = RobustSettingsModel()
            #expect(robust.maxRetries == 3 && robust.serverURL == "https://api.myapp.com" && robust.enableAnalytics)
            #expect(try folder.entries().isEmpty, "reading defaults wrote a file")

            let feature = FeatureModel()
            feature.isEnabled = true
            feature.experimentalMode = true
            let organized = OrganizedSettingsModel()
            #expect(organized.theme == "auto" && organized.timeout == 30)
            organized.compactMode = true
            organized.cachePolicy = "reloadIgnoringCache"

            #expect(try suiteFile("settings", in: folder)["com.myapp.feature.isEnabled"] == .bool(true))
            #expect(try suiteFile("com.myapp.features", in: folder)["experimentalMode"] == .bool(true))
            #expect(try suiteFile("com.myapp.ui", in: folder)["compactMode"] == .bool(true))
            #expect(try suiteFile("com.myapp.network", in: folder)["cachePolicy"] == .string("reloadIgnoringCache"))
            #expect(FeatureModel().isEnabled && OrganizedSettingsModel().compactMode)
        }
    }

    @Test("withObservationTracking sees a backed node's change, with only `import StateGraph`")
    func observationTracking() throws {
        try withSuiteFolder { (_) throws in
            let model = ThemeModel()
            let fired = Counter()
            withObservationTracking { _ = model.isDarkTheme } onChange: { fired.bump() }
            model.selectedTheme = UserTheme(name: "Solar Dark", primaryColor: "#000000", accentColor: "#FFD60A")
            #expect(fired.count == 1)
            #expect(model.isDarkTheme)
        }
    }

    @Test("values survive a new process: the settings app reads what these models wrote, and the other way round")
    func newProcess() async throws {
        let app = SettingsProgram()
        try await withSuiteFolder { folder in
            let theme = ThemeModel()
            theme.selectedTheme = UserTheme(name: "Midnight Dark", primaryColor: "#000000", accentColor: "#FFFFFF")
            AppConfigurationModel().debugMode = true
            let shown = try await app.settings("show", folder: folder)
            #expect(shown.termination == .exited(0), "\(shown)")
            #expect(shown.values["ThemeModel.selectedTheme"] == "Midnight Dark")
            #expect(shown.values["ThemeModel.isDarkTheme"] == "true")
            #expect(shown.values["AppConfigurationModel.shouldShowDebugOptions"] == "true")

            let setName = try await app.settings("set", "userName", "Ada", folder: folder)
            #expect(setName.termination == .exited(0), "\(setName)")
            #expect(UserPreferencesModel().displayName == "Ada")
            let setTheme = try await app.settings("set", "selectedTheme", "Solar Light", folder: folder)
            #expect(setTheme.termination == .exited(0), "\(setTheme)")
            let relaunched = ThemeModel()
            #expect(relaunched.selectedTheme.name == "Solar Light" && !relaunched.isDarkTheme)
            // The model that was open all along hears of the other process's write.
            let seen = await eventually { !theme.isDarkTheme }
            #expect(seen, "the other process's theme did not reach the open model")
            #expect(theme.selectedTheme.primaryColor == "#007AFF")
        }
    }
}

/// The built `settings` program (`swift build --build-tests` puts it beside the tests): another
/// process on the same suites.
struct SettingsProgram {
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

    /// Runs `settings <subcommand> --folder <folder> <rest>` and waits for it to end.
    func settings(_ subcommand: String, _ rest: String..., folder: TemporaryFolder) async throws -> Run {
        let arguments = [subcommand, "--folder", folder.url.path] + rest
        let child = try ChildProcess.start(try ChildProcess.builtProgram("settings"), arguments)
        let termination = try await child.waitForExit(deadline: .now + .seconds(180))
        return Run(arguments: arguments, termination: termination, output: child.standardOutput, errors: child.standardError)
    }
}
