import Foundation
#if canImport(FoundationNetworking)
// Platform: on Linux, `URLSessionConfiguration` (NetworkConfigurationModel) is in FoundationNetworking.
import FoundationNetworking
#endif
import SettingsModels
import StateGraph
import TestSupport
import XCTest

// The example code of swift-state-graph's "Backing Storage" article
// (../shared/originals/003_906799d4825f9dee.txt), as a user pastes it; OriginalExamplesTests.swift
// uses it. It is unchanged except where a comment marked "Platform:" gives the reason, and for the
// four settings types the `settings` app shares, which live in the `SettingsModels` module. Where the
// article says UserDefaults, the values are in FileStorageKit `DefaultsSuite` files,
// `<folder>/<suite>.plist`, the standard suite named after the program (StateGraph.docc's `PersistentBacking.md`, "Where
// the data lives"). The tests bind the folder to a temporary one and the standard suite's name to
// `settings`, the name the `settings` app uses, so the app and these models share files.

// MARK: - The article's code

final class ViewModel {
  @GraphStored var count: Int = 0
  // Equivalent to:
  // @GraphStored(backed: .memory) var count: Int = 0
}

final class SettingsModel {
  // Basic UserDefaults storage with key
  @GraphStored(backed: .userDefaults(key: "theme"))
  var theme: String = "light"
  
  // UserDefaults storage with custom suite
  @GraphStored(backed: .userDefaults(suite: "com.myapp.settings", key: "apiEndpoint"))
  var apiEndpoint: String = "https://api.production.com"
}

// `UserPreferencesModel` and `AppConfigurationModel` (and, below, `UserTheme` and `ThemeModel`) are
// the article's code in the `SettingsModels` module, shared with the `settings` app so the two cannot
// drift apart (Apps/settings/SettingsModels/SettingsModels.swift: `public` and `Sendable` added,
// checked against the article by SettingsModelsSpellingTests).

// Platform: `SettingsView` and `UserProfileView` are SwiftUI views. SwiftUI is not on Linux, and this
// module has no SwiftUI adapter (`$node.binding` is a `GraphBinding`, a get/set pair, not a SwiftUI
// `Binding`), so they are not compiled. `bindingsAsTheViewsUseThem` below makes the same reads and
// writes through the bindings.
//
// struct SettingsView: View {
//   let model: AppConfigurationModel
//
//   var body: some View {
//     NavigationView {
//       Form {
//         Section("Debug") {
//           Toggle("Debug Mode", isOn: model.$debugMode.binding)
//           Toggle("Experimental Features", isOn: model.$enableExperimentalFeatures.binding)
//
//           if model.shouldShowDebugOptions {
//             Text("Debug options are available")
//               .foregroundColor(.orange)
//           }
//         }
//
//         Section("Preferences") {
//           Toggle("Notifications", isOn: model.$notificationsEnabled.binding)
//
//           VStack(alignment: .leading) {
//             Text("Auto-save interval: \(Int(model.autoSaveInterval)) seconds")
//             Slider(
//               value: model.$autoSaveInterval.binding,
//               in: 60...600,
//               step: 60
//             )
//           }
//
//           Text("Effective interval: \(Int(model.effectiveAutoSaveInterval)) seconds")
//             .font(.caption)
//             .foregroundColor(.secondary)
//         }
//       }
//       .navigationTitle("Settings")
//     }
//   }
// }
//
// struct UserProfileView: View {
//  　let preferences: UserPreferencesModel
//
//   var body: some View {
//     VStack(spacing: 20) {
//       // User name input - automatically persisted
//       TextField("Enter your name", text: preferences.$userName.binding)
//         .textFieldStyle(.roundedBorder)
//
//       // Display name updates reactively
//       Text("Hello, \(preferences.displayName)!")
//         .font(.title)
//
//       // Font size control
//       VStack {
//         Text("Font Size")
//         Slider(value: preferences.$fontSize.binding, in: 12...32, step: 1)
//         Text("Sample text at \(Int(preferences.fontSize))pt")
//           .font(.system(size: preferences.accessibilityFontSize))
//       }
//     }
//     .padding()
//   }
// }

// Not in the article, which leaves `Document` to the app: the smallest type that lets its
// `DocumentEditorModel` compile.
struct Document {
  var path: String
}

final class DocumentEditorModel {
  @GraphStored(backed: .userDefaults(key: "lastOpenedDocument"))
  var lastOpenedDocumentPath: String? = nil
  
  // Platform: the article's `[String: Any]` is not Codable (UserDefaults stores it through the
  // Objective-C bridge, which Linux lacks); a dictionary of a Codable type is stored instead.
  @GraphStored(backed: .userDefaults(key: "editorSettings"))
  var editorSettings: [String: String] = [:]
  
  @GraphStored
  var currentDocument: Document? = nil
  
  @GraphComputed
  var canRestoreSession: Bool
  
  init() {
    self.$canRestoreSession = .init { [$lastOpenedDocumentPath, $currentDocument] _ in
      $lastOpenedDocumentPath.wrappedValue != nil && $currentDocument.wrappedValue == nil
    }
    
    // Automatically restore session on launch
    if canRestoreSession, let path = lastOpenedDocumentPath {
      loadDocument(at: path)
    }
  }
  
  func saveDocument(_ document: Document, at path: String) {
    currentDocument = document
    lastOpenedDocumentPath = path
    // lastOpenedDocumentPath is automatically persisted to UserDefaults
  }
  
  private func loadDocument(at path: String) {
    // Load document implementation
  }
}

final class NetworkConfigurationModel {
  // Environment-specific settings
  @GraphStored(backed: .userDefaults(suite: "com.myapp.network", key: "environment"))
  var environment: String = "production"
  
  @GraphStored(backed: .userDefaults(suite: "com.myapp.network", key: "customEndpoints"))
  var customEndpoints: [String: String] = [:]
  
  @GraphStored(backed: .userDefaults(suite: "com.myapp.network", key: "timeoutInterval"))
  var timeoutInterval: TimeInterval = 30.0
  
  // Computed configuration
  @GraphComputed
  var apiBaseURL: String
  
  @GraphComputed
  var requestConfiguration: URLSessionConfiguration
  
  init() {
    self.$apiBaseURL = .init { [$environment, $customEndpoints] _ in
      let env = $environment.wrappedValue
      let endpoints = $customEndpoints.wrappedValue
      
      // Check for custom endpoint first
      if let customURL = endpoints[env] {
        return customURL
      }
      
      // Default endpoints
      switch env {
      case "development":
        return "https://api-dev.myapp.com"
      case "staging":
        return "https://api-staging.myapp.com"
      case "production":
        return "https://api.myapp.com"
      default:
        return "https://api.myapp.com"
      }
    }
    
    self.$requestConfiguration = .init { [$timeoutInterval] _ in
      let config = URLSessionConfiguration.default
      config.timeoutIntervalForRequest = $timeoutInterval.wrappedValue
      config.timeoutIntervalForResource = $timeoutInterval.wrappedValue * 2
      return config
    }
  }
}

// `UserTheme` and `ThemeModel`: in the `SettingsModels` module (see above).

final class PerformanceOptimizedModel {
  @GraphStored(backed: .userDefaults(key: "counter"))
  var counter: Int = 0
  
  func incrementIfNeeded() {
    let newValue = counter + 1
    if newValue != counter {
      counter = newValue  // Only persists if value actually changes
    }
  }
}

final class ProfileModel {
  @GraphStored(backed: .userDefaults(key: "firstName"))
  var firstName: String = ""
  
  @GraphStored(backed: .userDefaults(key: "lastName"))
  var lastName: String = ""
  
  @GraphStored(backed: .userDefaults(key: "email"))
  var email: String = ""
  
  func updateProfile(firstName: String, lastName: String, email: String) {
    // These updates will be batched efficiently
    self.firstName = firstName
    self.lastName = lastName
    self.email = email
  }
}

// Platform: the models are in this file, not in an app module.
// @testable import YourApp

class BackingStorageTests: XCTestCase {
  
  func testUserPreferencesPersistence() {
    let model = UserPreferencesModel()
    
    // Change a value
    model.userName = "Test User"
    
    // Create a new instance - should restore the persisted value
    let newModel = UserPreferencesModel()
    XCTAssertEqual(newModel.userName, "Test User")
    
    // Computed properties work with persisted values
    XCTAssertEqual(newModel.displayName, "Test User")
  }
  
  func testComputedPropertiesWithBackingStorage() {
    let config = AppConfigurationModel()
    
    // Test initial state
    XCTAssertFalse(config.shouldShowDebugOptions)
    
    // Enable debug mode
    config.debugMode = true
    XCTAssertTrue(config.shouldShowDebugOptions)
    
    // Verify persistence
    let newConfig = AppConfigurationModel()
    XCTAssertTrue(newConfig.debugMode)
    XCTAssertTrue(newConfig.shouldShowDebugOptions)
  }
  
  // Platform: the article removes its keys from `UserDefaults.standard` after each test. Here the
  // standard suite is a file in the program's preferences folder (`~/.config/<program>` on Linux),
  // which a test must not touch, so each test runs in a temporary folder of its own, removed after it.
  override func invokeTest() {
    guard let folder = try? TemporaryFolder(prefix: "state-graph-xctest") else {
      return XCTFail("cannot make a temporary folder")
    }
    GraphStorageLocation.$folder.withValue(folder.url) {
      GraphStorageLocation.$standardSuiteName.withValue("settings") {
        super.invokeTest()
      }
    }
  }
  // override func tearDown() {
  //   // Clean up UserDefaults after tests
  //   let defaults = UserDefaults.standard
  //   defaults.removeObject(forKey: "userName")
  //   defaults.removeObject(forKey: "debugMode")
  //   // ... remove other test keys
  //   super.tearDown()
  // }
}

final class FeatureModel {
  // ✅ Good: Descriptive, namespaced keys
  @GraphStored(backed: .userDefaults(key: "com.myapp.feature.isEnabled"))
  var isEnabled: Bool = false
  
  @GraphStored(backed: .userDefaults(suite: "com.myapp.features", key: "experimentalMode"))
  var experimentalMode: Bool = false
  
  // ❌ Avoid: Generic keys that might conflict
  // @GraphStored(backed: .userDefaults(key: "enabled"))
  // var isEnabled: Bool = false
}

final class OrganizedSettingsModel {
  // UI preferences
  @GraphStored(backed: .userDefaults(suite: "com.myapp.ui", key: "theme"))
  var theme: String = "auto"
  
  @GraphStored(backed: .userDefaults(suite: "com.myapp.ui", key: "compactMode"))
  var compactMode: Bool = false
  
  // Network settings
  @GraphStored(backed: .userDefaults(suite: "com.myapp.network", key: "cachePolicy"))
  var cachePolicy: String = "automatic"
  
  @GraphStored(backed: .userDefaults(suite: "com.myapp.network", key: "timeout"))
  var timeout: TimeInterval = 30.0
}

final class RobustSettingsModel {
  @GraphStored(backed: .userDefaults(key: "maxRetries"))
  var maxRetries: Int = 3  // Sensible default
  
  @GraphStored(backed: .userDefaults(key: "serverURL"))
  var serverURL: String = "https://api.myapp.com"  // Production default
  
  @GraphStored(backed: .userDefaults(key: "enableAnalytics"))
  var enableAnalytics: Bool = true  // Opt-in by default
}
