import Foundation
import StateGraph

// The settings examples of swift-state-graph's "Backing Storage" article, written with this package's
// macros. The `settings` app declares the same three models; the app tests check they agree.

/// A user's name and font size, kept in the standard suite.
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

/// Feature flags in the standard suite, preferences in their own suite, and what follows from them.
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
            $debugMode.wrappedValue ? 60.0 : $autoSaveInterval.wrappedValue
        }
    }
}

/// A Codable theme.
struct UserTheme: Codable, Equatable, Sendable {
    var name: String
    var primaryColor: String
    var accentColor: String
}

/// A Codable value in the standard suite.
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

/// A memory-only model: a diamond (`base` feeds `left` and `right`, both feed `sum`) and a branch.
final class DiamondModel: Sendable {
    @GraphStored var base: Int = 1
    @GraphStored var useLeft: Bool = true
    @GraphStored var other: Int = 100
    @GraphComputed var left: Int
    @GraphComputed var right: Int
    @GraphComputed var sum: String
    @GraphComputed var branch: Int

    init() {
        self.$left = .init { [$base] _ in $base.wrappedValue * 10 }
        self.$right = .init { [$base] _ in $base.wrappedValue * 100 }
        self.$sum = .init { [$left, $right] _ in "\($left.wrappedValue)+\($right.wrappedValue)" }
        self.$branch = .init { [$useLeft, $left, $other] _ in
            $useLeft.wrappedValue ? $left.wrappedValue : $other.wrappedValue
        }
    }
}

/// A model whose initializer assigns its graph properties (through the generated `init` accessor).
public final class InitializedModel: Sendable {
    @GraphStored public var name: String = "unset"
    @GraphStored public var nickname: String?
    @GraphStored public private(set) var visits: Int = 0
    @GraphComputed public var greeting: String

    public init(name: String, nickname: String?) {
        self.name = name
        self.nickname = nickname
        self.$greeting = .init { [$name, $nickname] _ in
            "Hello, \($nickname.wrappedValue ?? $name.wrappedValue)"
        }
    }

    public func visit() { visits += 1 }
}
