import FileStorageKit
import Foundation
import PlistCodec
import SettingsModels
import StateGraph
import Testing
import TestSupport

/// Suite-backed stored nodes: what is written, when, in which file, and what comes back.
@Suite("suite backing")
struct BackingTests {
    /// The suite file's top-level dictionary.
    func stored(_ folder: TemporaryFolder, suite: String = "settings") throws -> PlistDictionary {
        let value = try PlistValue(parsing: try Data(contentsOf: folder.file("\(suite).plist")))
        return try #require(value.dictionaryValue, "\(suite).plist is not a dictionary")
    }

    @Test("a new instance restores persisted values and its computed values agree")
    func restoresPersistedValues() throws {
        try withSuiteFolder { folder in
            let model = UserPreferencesModel()
            #expect(model.displayName == "Anonymous User")
            model.userName = "Test User"
            model.fontSize = 40
            #expect(model.accessibilityFontSize == 32)

            let newModel = UserPreferencesModel()
            #expect(newModel.userName == "Test User")
            #expect(newModel.displayName == "Test User")
            #expect(newModel.fontSize == 40)
            #expect(newModel.accessibilityFontSize == 32)
            let file = try stored(folder)
            #expect(file["userName"] == .string("Test User"))
            #expect(file["fontSize"] == .real(40))
        }
    }

    @Test("debugMode = true makes shouldShowDebugOptions true, here and in a new instance")
    func debugMode() throws {
        try withSuiteFolder { folder in
            let config = AppConfigurationModel()
            #expect(!config.shouldShowDebugOptions)
            #expect(config.effectiveAutoSaveInterval == 300)
            config.debugMode = true
            #expect(config.shouldShowDebugOptions)
            #expect(config.effectiveAutoSaveInterval == 60)

            let newConfig = AppConfigurationModel()
            #expect(newConfig.debugMode)
            #expect(newConfig.shouldShowDebugOptions)
            #expect(newConfig.effectiveAutoSaveInterval == 60)
            // The named suite is its own file.
            config.autoSaveInterval = 120
            config.notificationsEnabled = false
            let preferences = try stored(folder, suite: "com.myapp.preferences")
            #expect(preferences["autoSaveInterval"] == .real(120))
            #expect(preferences["notificationsEnabled"] == .bool(false))
            #expect(try stored(folder)["autoSaveInterval"] == nil)
        }
    }

    @Test("a Codable value is stored as property-list values and restored")
    func codableTheme() throws {
        try withSuiteFolder { folder in
            let model = ThemeModel()
            #expect(!model.isDarkTheme)
            model.selectedTheme = UserTheme(name: "Midnight Dark", primaryColor: "#000000", accentColor: "#FFFFFF")
            #expect(model.isDarkTheme)
            let theme = try #require(try stored(folder)["selectedTheme"]?.dictionaryValue)
            #expect(theme["name"] == .string("Midnight Dark"))
            let restored = ThemeModel()
            #expect(restored.selectedTheme.primaryColor == "#000000")
            #expect(restored.isDarkTheme)
        }
    }

    @Test("setting a stored node to its current value writes nothing")
    func sameValueWritesNothing() throws {
        try withSuiteFolder { folder in
            let config = AppConfigurationModel()
            let debug = config.$debugMode
            config.debugMode = false   // the default: equal, so nothing is written
            #expect(debug.suiteWriteCount == 0)
            #expect(!FileManager.default.fileExists(atPath: folder.file("settings.plist").path),
                    "setting the default created the suite file")
            config.debugMode = true
            #expect(debug.suiteWriteCount == 1)
            let monitor = FileChangeMonitor(url: folder.file("settings.plist"))
            let token = monitor.changeToken
            let bytes = try Data(contentsOf: folder.file("settings.plist"))
            for _ in 0..<50 { config.debugMode = true }
            #expect(debug.suiteWriteCount == 1, "50 sets of the current value wrote \(debug.suiteWriteCount - 1) times")
            #expect(monitor.changeToken == token)
            #expect(try Data(contentsOf: folder.file("settings.plist")) == bytes)
            config.debugMode = false
            #expect(debug.suiteWriteCount == 2)
        }
    }

    @Test("setting the current value notifies nobody and recomputes nothing")
    func sameValueNotifiesNobody() throws {
        try withSuiteFolder { _ in
            let config = AppConfigurationModel()
            #expect(!config.shouldShowDebugOptions)
            let fired = Counter()
            withGraphObservationTracking { _ = config.shouldShowDebugOptions } onChange: { fired.bump() }
            config.debugMode = false
            #expect(fired.count == 0)
            #expect(config.$shouldShowDebugOptions.evaluationCount == 1)
        }
    }

    @Test("arrays, dictionaries, dates, data and optionals round-trip; nil removes the key")
    func valueKinds() throws {
        try withSuiteFolder { folder in
            func node<T: Codable & Equatable>(_ key: String, _ value: T) -> StoredNode<T, UserDefaultsStorage<T>> {
                StoredNode(name: key, backing: .userDefaults(suite: "kinds", key: key), defaultValue: value)
            }
            let tags = node("tags", [String]())
            let limits = node("limits", [String: Int]())
            let when = node("when", Date(timeIntervalSince1970: 0))
            let blob = node("blob", Data())
            let nickname = node("nickname", String?.none)
            tags.wrappedValue = ["a", "b"]
            limits.wrappedValue = ["max": 9, "min": 1]
            when.wrappedValue = Date(timeIntervalSince1970: 1_700_000_000)
            blob.wrappedValue = Data([0, 1, 2])
            nickname.wrappedValue = "Bob"

            let file = try stored(folder, suite: "kinds")
            #expect(file["tags"] == .array([.string("a"), .string("b")]))
            #expect(file["when"] == .date(Date(timeIntervalSince1970: 1_700_000_000)))
            #expect(file["blob"] == .data(Data([0, 1, 2])))
            #expect(file["nickname"] == .string("Bob"))

            #expect(node("tags", [String]()).wrappedValue == ["a", "b"])
            #expect(node("limits", [String: Int]()).wrappedValue == ["max": 9, "min": 1])
            #expect(node("when", Date()).wrappedValue == Date(timeIntervalSince1970: 1_700_000_000))
            #expect(node("blob", Data()).wrappedValue == Data([0, 1, 2]))
            #expect(node("nickname", String?.none).wrappedValue == "Bob")

            nickname.wrappedValue = nil
            #expect(try stored(folder, suite: "kinds")["nickname"] == nil)
            #expect(node("nickname", String?.none).wrappedValue == nil)
        }
    }

    @Test("a value of the wrong type in the suite keeps the default and is reported")
    func undecodableValue() throws {
        try withSuiteFolder { folder in
            let suite = DefaultsSuite(suiteName: "settings", folder: folder.url)
            try suite.set("not a number", forKey: "fontSize")
            let model = UserPreferencesModel()
            #expect(model.fontSize == 16)
            let error = try #require(model.$fontSize.storageError)
            #expect(error.operation == .decode)
            #expect(error.key == "fontSize")
        }
    }

    @Test("a write by another suite instance reaches the node and its dependents")
    func externalWrite() async throws {
        try await withSuiteFolder { folder in
            let config = AppConfigurationModel()
            #expect(!config.shouldShowDebugOptions)
            let fired = Counter()
            withGraphObservationTracking { _ = config.shouldShowDebugOptions } onChange: { fired.bump() }
            // A separate DefaultsSuite object writes the file as another process would.
            try writeAsAnotherProcess(.bool(true), forKey: "enableExperimentalFeatures", in: folder)
            let seen = await eventually { config.shouldShowDebugOptions }
            #expect(seen)
            #expect(config.enableExperimentalFeatures)
            let firedOnce = await eventually { fired.count == 1 }
            #expect(firedOnce)
            // Removing the key brings the default back.
            try writeAsAnotherProcess(nil, forKey: "enableExperimentalFeatures", in: folder)
            let reverted = await eventually { !config.shouldShowDebugOptions }
            #expect(reverted)
        }
    }

    @Test("the folder comes from GraphStorageLocation when the node is made")
    func locationIsReadAtCreation() throws {
        let first = try TemporaryFolder(prefix: "state-graph")
        let second = try TemporaryFolder(prefix: "state-graph")
        let node = GraphStorageLocation.$folder.withValue(first.url) {
            StoredNode(name: "n", backing: .userDefaults(suite: "where", key: "n"), defaultValue: 0)
        }
        GraphStorageLocation.$folder.withValue(second.url) { node.wrappedValue = 5 }
        #expect(FileManager.default.fileExists(atPath: first.file("where.plist").path))
        #expect(!FileManager.default.fileExists(atPath: second.file("where.plist").path))
        #expect(node.suite?.url.deletingLastPathComponent().standardizedFileURL.path
                == first.url.standardizedFileURL.path)
    }

    @Test("a Codable value that is not Equatable is compared by its encoding: the same value writes nothing")
    func nonEquatableCodable() throws {
        struct Window: Codable {
            var width: Int
            var height: Int
        }
        try withSuiteFolder { _ in
            let node = StoredNode(name: "window", backing: .userDefaults(suite: "layout", key: "window"),
                              defaultValue: Window(width: 800, height: 600))
            let area = Computed { _ in node.wrappedValue.width * node.wrappedValue.height }
            #expect(area.wrappedValue == 480_000)
            node.wrappedValue = Window(width: 800, height: 600)
            #expect(node.suiteWriteCount == 0)
            #expect(area.wrappedValue == 480_000)
            #expect(area.evaluationCount == 1, "an unchanged value recomputed the dependent")
            node.wrappedValue = Window(width: 1024, height: 768)
            #expect(node.suiteWriteCount == 1)
            #expect(area.wrappedValue == 786_432)
            node.wrappedValue = Window(width: 1024, height: 768)
            #expect(node.suiteWriteCount == 1)
        }
    }

    @Test("a non-Equatable Codable value of several keys: its own write is not a second change, and an equal value is not rewritten")
    func nonEquatableWriteIsNotEchoed() async throws {
        // Declared out of alphabetical order: the file holds the keys sorted.
        struct Layout: Codable {
            var zoom: Double
            var title: String
            var columns: Int
            var sidebar: Bool
        }
        try await withSuiteFolder { folder in
            let node = StoredNode(name: "layout", backing: .userDefaults(key: "layout"),
                              defaultValue: Layout(zoom: 1, title: "Main", columns: 2, sidebar: true))
            let changes = Counter()
            let subscription = GraphSubscription({ node.wrappedValue.title }, onChange: { _ in changes.bump() })
            node.wrappedValue = Layout(zoom: 1.5, title: "Wide", columns: 3, sidebar: false)
            #expect(changes.count == 1)
            #expect(node.suiteWriteCount == 1)
            // The suite reports the write back to the node (as it would another process's).
            #expect(try await suiteSettled(in: folder), "the suite's watcher did not deliver a marker write")
            #expect(changes.count == 1, "the node's own write came back as a change")

            let file = folder.file("settings.plist")
            let before = try FileSnapshot(file)
            for _ in 0..<3 { node.wrappedValue = Layout(zoom: 1.5, title: "Wide", columns: 3, sidebar: false) }
            #expect(node.suiteWriteCount == 1, "setting an equal value wrote \(node.suiteWriteCount - 1) times")
            #expect(try FileSnapshot(file) == before, "setting an equal value rewrote the file")
            #expect(changes.count == 1)

            node.wrappedValue = Layout(zoom: 1.5, title: "Wide", columns: 4, sidebar: false)
            #expect(node.suiteWriteCount == 2)
            #expect(changes.count == 2)
            #expect(try await suiteSettled(in: folder))
            #expect(changes.count == 2, "the node's own write came back as a change")
            #expect(try PlistValue(parsing: Data(contentsOf: file)).dictionaryValue?["layout"]?.dictionaryValue?["columns"] == .int(4))
            subscription.cancel()
        }
    }
}
