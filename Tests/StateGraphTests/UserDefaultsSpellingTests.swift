import FileStorageKit
import Foundation
import PlistCodec
import StateGraph
import Testing
import TestSupport

/// swift-state-graph's persistence spellings — `UserDefaultsStored`, `UserDefaultsStorable`,
/// `@GraphUserDefault` — kept in this toolkit's defaults suites.
@Suite("user defaults spellings")
struct UserDefaultsSpellingTests {
    struct EditorPreferences: Codable, Equatable, Sendable, UserDefaultsStorable {
        var fontSize: Int
        var wraps: Bool
    }

    // `@unchecked`: a property wrapper's storage is a `var`, which a checked `Sendable` class refuses (as with the peer).
    final class Settings: @unchecked Sendable {
        @GraphUserDefault("theme") var theme: String = "light"
        @GraphUserDefault("apiUrl", suiteName: "com.example.app") var apiUrl: String = "https://example.com"
        @GraphUserDefault("editorPreferences") var editorPreferences = EditorPreferences(fontSize: 12, wraps: true)
        @GraphUserDefault("nickname") var nickname: String? = nil
        @GraphComputed var isDarkMode: Bool

        init() {
            // `[$theme]` (0.26's documentation) is refused by Swift: `$theme` is a computed property, read
            // before `$isDarkMode` is set. The wrapper's storage `_theme` is already there.
            $isDarkMode = .init { [theme = _theme] _ in theme.wrappedValue == "dark" }
        }
    }

    func file(_ folder: TemporaryFolder, suite: String = "settings") throws -> PlistDictionary {
        let value = try PlistValue(parsing: try Data(contentsOf: folder.file("\(suite).plist")))
        return try #require(value.dictionaryValue)
    }

    @Test("UserDefaultsStored: the default, then every type written to the suite and read back by a new node")
    func userDefaultsStored() throws {
        try withSuiteFolder { folder in
            let text = UserDefaultsStored(key: "text", defaultValue: "none")
            let number = UserDefaultsStored(suite: "other", key: "number", defaultValue: 1)
            let flag = UserDefaultsStored(key: "flag", defaultValue: false)
            let real = UserDefaultsStored(key: "real", defaultValue: 0.5)
            let when = UserDefaultsStored(key: "when", defaultValue: Date(timeIntervalSince1970: 0))
            let link = UserDefaultsStored(key: "link", defaultValue: URL(string: "https://a.example")!)
            let prefs = UserDefaultsStored(name: "prefs", key: "prefs", defaultValue: EditorPreferences(fontSize: 10, wraps: false))
            #expect(text.wrappedValue == "none" && number.wrappedValue == 1 && prefs.name == "prefs" && text.name == "text")
            text.wrappedValue = "set"
            number.wrappedValue = 42
            flag.wrappedValue = true
            real.wrappedValue = 2.25
            when.wrappedValue = Date(timeIntervalSince1970: 1_000)
            link.wrappedValue = URL(string: "https://b.example")!
            prefs.wrappedValue = EditorPreferences(fontSize: 16, wraps: true)
            let stored = try file(folder)
            #expect(stored["text"] == .string("set") && stored["flag"] == .bool(true))
            let read1 = try file(folder, suite: "other")
            #expect(read1["number"] == .int(42))
            #expect(UserDefaultsStored(key: "text", defaultValue: "x").wrappedValue == "set")
            #expect(UserDefaultsStored(key: "real", defaultValue: 0.0).wrappedValue == 2.25)
            #expect(UserDefaultsStored(key: "when", defaultValue: Date()).wrappedValue == Date(timeIntervalSince1970: 1_000))
            #expect(UserDefaultsStored(key: "link", defaultValue: URL(string: "https://x.example")!).wrappedValue.host == "b.example")
            #expect(UserDefaultsStored(key: "prefs", defaultValue: EditorPreferences(fontSize: 0, wraps: false)).wrappedValue
                    == EditorPreferences(fontSize: 16, wraps: true))
        }
    }

    @Test("@GraphUserDefault: $name is the same wrapper, writes persist, a named suite is its own file, nil removes the key")
    func graphUserDefault() throws {
        try withSuiteFolder { folder in
            let settings = Settings()
            #expect(settings.$theme === settings.$theme)
            #expect(!settings.isDarkMode)
            settings.theme = "dark"
            #expect(settings.isDarkMode, "a computed node over the wrapper follows it")
            #expect(settings.$theme.wrappedValue == "dark")
            settings.apiUrl = "https://api.example.com"
            settings.editorPreferences.fontSize = 20
            settings.nickname = "ada"
            let read2 = try file(folder)
            #expect(read2["theme"] == .string("dark"))
            let read3 = try file(folder, suite: "com.example.app")
            #expect(read3["apiUrl"] == .string("https://api.example.com"))
            let read4 = try file(folder)
            #expect(read4["nickname"] == .string("ada"))
            settings.nickname = nil
            let read5 = try file(folder)
            #expect(read5["nickname"] == nil)
            let again = Settings()
            #expect(again.theme == "dark" && again.apiUrl == "https://api.example.com" && again.editorPreferences.fontSize == 20)
            #expect(again.nickname == nil)
        }
    }

    @Test("@GraphUserDefault: onDidSet once per change, not for an equal set; a wrapper kept alone keeps syncing")
    func onDidSetAndRetainedProjection() async throws {
        try await withSuiteFolder { folder in
            var settings: Settings? = Settings()
            let changes = Recorded<String>()
            settings!.$theme.onDidSet { old, new in changes.append("\(old)->\(new)") }
            settings!.theme = "dark"
            settings!.theme = "dark"
            #expect(changes.all == ["light->dark"])
            let theme = settings!.$theme
            settings = nil
            try writeAsAnotherProcess(.string("sepia"), forKey: "theme", in: folder)
            #expect(await eventually { theme.wrappedValue == "sepia" }, "the retained wrapper still hears the suite")
        }
    }

    @Test("another instance's or another process's write reaches a tracked read of the same key")
    func externalWrites() async throws {
        try await withSuiteFolder { folder in
            let first = Settings()
            let second = Settings()
            let seen = Recorded<Bool>()
            let subscription = GraphSubscription({ second.isDarkMode }, onChange: { seen.append($0) })
            first.theme = "dark"
            #expect(await eventually { second.theme == "dark" && seen.all.last == true })
            try writeAsAnotherProcess(.string("light"), forKey: "theme", in: folder)
            #expect(await eventually { first.theme == "light" && second.theme == "light" && seen.all.last == false })
            subscription.cancel()
        }
    }

    /// Invariant: a batch that sets two suite-backed keys is seen by every other node of those keys
    /// whole — an observer of the other nodes never runs with one key new and the other old.
    @Test("a batch on one model is seen whole by another model's nodes on the same keys, round after round")
    func batchSeenWhole() async throws {
        try await withSuiteFolder { folder in
            final class Pair: Sendable {
                @GraphStored(backed: .userDefaults(key: "left")) var left: Int = 0
                @GraphStored(backed: .userDefaults(key: "right")) var right: Int = 0
            }
            let writer = Pair()
            let reader = Pair()
            let seen = Recorded<[Int]>()
            let subscription = GraphSubscription({ [reader.left, reader.right] }, onChange: { seen.append($0) })
            let rounds = 60
            for round in 1...rounds {
                withGraphBatch {
                    writer.left = round
                    writer.right = round
                    // Inside the batch the file still holds the last round: it is written at the end.
                    #expect((try? DefaultsSuite(suiteName: "settings", folder: folder.url).object(forKey: "left")) == (round == 1 ? nil : .int(round - 1)))
                }
                let stored = try file(folder)
                #expect(stored["left"] == .int(round) && stored["right"] == .int(round))
            }
            #expect(await eventually { seen.all.last == [rounds, rounds] })
            let torn = seen.all.filter { $0[0] != $0[1] }
            #expect(torn.isEmpty, "the reader saw half a batch: \(torn.prefix(5))")
            subscription.cancel()
        }
    }

    /// The same invariant, wider: eight keys per batch and 200 batches back to back, so a reload that
    /// read the suite key by key would straddle a batch's write.
    @Test("eight keys per batch, 200 batches: the other nodes never show a mix of two batches")
    func wideBatchesSeenWhole() async throws {
        try await withSuiteFolder { _ in
            let keys = (0..<8).map { "wide\($0)" }
            let writer = keys.map { StoredNode(name: $0, backing: .userDefaults(key: $0), defaultValue: 0) }
            let reader = keys.map { StoredNode(name: $0, backing: .userDefaults(key: $0), defaultValue: 0) }
            let seen = Recorded<[Int]>()
            let subscription = GraphSubscription({ reader.map(\.wrappedValue) }, onChange: { seen.append($0) })
            let rounds = 200
            for round in 1...rounds {
                withGraphBatch {
                    for node in writer { node.wrappedValue = round }
                }
            }
            #expect(await eventually { seen.all.last == Array(repeating: rounds, count: keys.count) })
            let torn = seen.all.filter { Set($0).count > 1 }
            #expect(torn.isEmpty, "the reader saw a mix: \(torn.prefix(3))")
            subscription.cancel()
        }
    }
}
