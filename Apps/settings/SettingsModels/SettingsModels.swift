// The settings models of swift-state-graph's "Backing Storage" article
// (../shared/originals/003_906799d4825f9dee.txt), shared by the `settings` app and StateGraph's tests
// of the article (Tests/StateGraphTests/OriginalExamplesTests.swift), so the two cannot drift apart.
// The article's code with three changes: `public` on each declaration (they live in a module of their
// own), `Sendable` on each type (the app hands them to a `GraphSubscription`, whose closures are
// `@Sendable`; the stored and computed nodes make them so), and a public initializer for `UserTheme`.
// SettingsModelsSpellingTests checks this file against the article.
//
// Where the article says UserDefaults, the values are in FileStorageKit `DefaultsSuite` files,
// `<folder>/<suite>.plist`: `.userDefaults(key:)` is the standard suite (named `settings` in the app
// and in the tests), `.userDefaults(suite:key:)` a suite of its own (StateGraph.docc's `PersistentBacking.md`).
import Foundation
import StateGraph

public final class UserPreferencesModel: Sendable {
  @GraphStored(backed: .userDefaults(key: "userName"))
  public var userName: String = ""
  
  @GraphStored(backed: .userDefaults(key: "fontSize"))
  public var fontSize: Double = 16.0
  
  @GraphComputed
  public var displayName: String
  
  @GraphComputed
  public var accessibilityFontSize: Double
  
  public init() {
    // Computed properties work with backed storage
    self.$displayName = .init { [$userName] _ in
      let name = $userName.wrappedValue
      return name.isEmpty ? "Anonymous User" : name
    }
    
    self.$accessibilityFontSize = .init { [$fontSize] _ in
      max(12.0, min(32.0, $fontSize.wrappedValue))
    }
  }
}

public final class AppConfigurationModel: Sendable {
  // Feature flags
  @GraphStored(backed: .userDefaults(key: "enableExperimentalFeatures"))
  public var enableExperimentalFeatures: Bool = false
  
  @GraphStored(backed: .userDefaults(key: "debugMode"))
  public var debugMode: Bool = false
  
  // User preferences
  @GraphStored(backed: .userDefaults(suite: "com.myapp.preferences", key: "notificationsEnabled"))
  public var notificationsEnabled: Bool = true
  
  @GraphStored(backed: .userDefaults(suite: "com.myapp.preferences", key: "autoSaveInterval"))
  public var autoSaveInterval: TimeInterval = 300 // 5 minutes
  
  // Derived configuration
  @GraphComputed
  public var shouldShowDebugOptions: Bool
  
  @GraphComputed
  public var effectiveAutoSaveInterval: TimeInterval
  
  public init() {
    self.$shouldShowDebugOptions = .init { [$debugMode, $enableExperimentalFeatures] _ in
      $debugMode.wrappedValue || $enableExperimentalFeatures.wrappedValue
    }
    
    self.$effectiveAutoSaveInterval = .init { [$autoSaveInterval, $debugMode] _ in
      // Faster auto-save in debug mode
      $debugMode.wrappedValue ? 60.0 : $autoSaveInterval.wrappedValue
    }
  }
}

public struct UserTheme: Codable, Sendable {
  public let name: String
  public let primaryColor: String
  public let accentColor: String

  // Not in the article: a struct's memberwise initializer is internal, and the app and the tests are
  // other modules.
  public init(name: String, primaryColor: String, accentColor: String) {
    self.name = name
    self.primaryColor = primaryColor
    self.accentColor = accentColor
  }
}

public final class ThemeModel: Sendable {
  @GraphStored(backed: .userDefaults(key: "selectedTheme"))
  public var selectedTheme: UserTheme = UserTheme(
    name: "Default",
    primaryColor: "#007AFF",
    accentColor: "#FF9500"
  )
  
  @GraphComputed
  public var isDarkTheme: Bool
  
  public init() {
    self.$isDarkTheme = .init { [$selectedTheme] _ in
      $selectedTheme.wrappedValue.name.lowercased().contains("dark")
    }
  }
}
