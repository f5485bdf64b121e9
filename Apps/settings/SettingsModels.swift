import Foundation
import StateGraph

// The settings examples of swift-state-graph's "Backing Storage" article, on this package's
// `DefaultsSuite`: `.userDefaults(key:)` is the suite named `settings`, and
// `.userDefaults(suite:key:)` a suite of its own, both in the preferences folder (or `--folder`).

/// A user's name and font size, and what the interface shows for them.
final class UserPreferencesModel: Sendable {
    @GraphStored(backed: .userDefaults(key: "userName"))
    var userName: String = ""

    @GraphStored(backed: .userDefaults(key: "fontSize"))
    var fontSize: Double = 16.0

    @GraphComputed
    var displayName: String

    @GraphComputed
    var accessibilityFontSize: Double

    init() {
        self.$displayName = .init { [$userName] _ in
            let name = $userName.wrappedValue
            return name.isEmpty ? "Anonymous User" : name
        }
        self.$accessibilityFontSize = .init { [$fontSize] _ in
            max(12.0, min(32.0, $fontSize.wrappedValue))
        }
    }
}

/// Feature flags and preferences, and the configuration that follows from them.
final class AppConfigurationModel: Sendable {
    @GraphStored(backed: .userDefaults(key: "enableExperimentalFeatures"))
    var enableExperimentalFeatures: Bool = false

    @GraphStored(backed: .userDefaults(key: "debugMode"))
    var debugMode: Bool = false

    @GraphStored(backed: .userDefaults(suite: "com.myapp.preferences", key: "notificationsEnabled"))
    var notificationsEnabled: Bool = true

    @GraphStored(backed: .userDefaults(suite: "com.myapp.preferences", key: "autoSaveInterval"))
    var autoSaveInterval: TimeInterval = 300

    @GraphComputed
    var shouldShowDebugOptions: Bool

    @GraphComputed
    var effectiveAutoSaveInterval: TimeInterval

    init() {
        self.$shouldShowDebugOptions = .init { [$debugMode, $enableExperimentalFeatures] _ in
            $debugMode.wrappedValue || $enableExperimentalFeatures.wrappedValue
        }
        self.$effectiveAutoSaveInterval = .init { [$autoSaveInterval, $debugMode] _ in
            // Faster auto-save in debug mode.
            $debugMode.wrappedValue ? 60.0 : $autoSaveInterval.wrappedValue
        }
    }
}

/// A theme, stored as a dictionary of property-list values. Not `Equatable`, as in the article: the
/// node compares what it would write with what the suite holds.
struct UserTheme: Codable, Sendable {
    let name: String
    let primaryColor: String
    let accentColor: String
}

/// The selected theme, and whether it is a dark one.
final class ThemeModel: Sendable {
    @GraphStored(backed: .userDefaults(key: "selectedTheme"))
    var selectedTheme: UserTheme = UserTheme(name: "Default", primaryColor: "#007AFF", accentColor: "#FF9500")

    @GraphComputed
    var isDarkTheme: Bool

    init() {
        self.$isDarkTheme = .init { [$selectedTheme] _ in
            $selectedTheme.wrappedValue.name.lowercased().contains("dark")
        }
    }
}

/// The three models, made together in one location.
struct SettingsModels: Sendable {
    let preferences = UserPreferencesModel()
    let configuration = AppConfigurationModel()
    let theme = ThemeModel()
}
