// The code examples of swift-state-graph 0.25.0's README and DocC articles (Documentation,
// Quick-Start-Guide, Core-Concepts, Migration-from-Observable), copied as written, so they keep
// compiling against this module; `PeerDocumentedExamplesTests` checks they behave as documented.
// (`OriginalExamples.swift` has the Backing-Storage article's.)
//
// Each example sits in a namespace of its own (the articles reuse type names). Examples that are
// statements or property fragments are wrapped in a function or class; what they use but do not
// define (`Item`, `CartItem`, `User`, labels, analysis functions) is defined beside them. Left out:
// SwiftUI and UIKit views (not on Linux; their models are here), Package.swift snippets, and the
// "before" halves written against Observation. The view controllers stand in for UIKit's, which are
// main-actor isolated, so their tracking runs on the main actor: they, and the functions wrapping a
// snippet that sets up tracking, are `@MainActor`. Changes to the text, each marked `// ported:`:
// README's "Drop-in Observable Enhancement" declares `@GraphStored var name = ""` without a type,
// which the peer's macro refuses too ("requires explicit type annotation"), so it gets `: String`;
// and the snippets that read a view controller's property inside a tracking closure need `self.`
// (the closures escape, in the peer as here, so Swift requires it; as printed they compile in
// neither).

import Foundation
import StateGraph

enum ReadmeQuickStart {
    final class Counter {
      @GraphStored var count: Int = 0
      @GraphComputed var isEven: Bool

      init() {
        $isEven = .init { [$count] _ in
          $count.wrappedValue % 2 == 0
        }
      }
    }

    static func usage() -> Bool {
        // Usage
        let counter = Counter()
        counter.count = 5
        print(counter.isEven) // false - automatically computed
        return counter.isEven
    }
}

enum ReadmeDependencyTracking {
    final class Person {
        @GraphStored var firstName: String = "John"
        @GraphStored var lastName: String = "Doe"
        @GraphComputed var fullName: String

        init() {
          $fullName = .init { [$firstName, $lastName] _ in
            "\($firstName.wrappedValue) \($lastName.wrappedValue)"
          }
        }
        // Change firstName → fullName updates automatically
    }
}

enum ReadmeUIKitTracking {
    @MainActor
    final class Screen {
        let counter = ReadmeQuickStart.Counter()
        var subscription: AnyCancellable?
        var printed: [Int] = []

        func bind() {
            // UIKit - use withGraphTracking
            subscription = withGraphTracking {
              withGraphTrackingGroup {
                print(self.counter.count)  // ported: `self.` (an escaping closure; the README's does not compile either)
                self.printed.append(self.counter.count)
              }
            }
        }
    }
}

enum ReadmeDropIn {
    // After: Automatic reactivity
    final class UserViewModel {
      @GraphStored var name: String = ""  // ported: the README omits `: String`
      @GraphComputed var isValid: Bool
      init() {
        $isValid = .init { [$name] _ in !$name.wrappedValue.isEmpty }
      }
    }
}

enum ReadmePersistent {
    final class Settings {
        @GraphStored(backed: .userDefaults(key: "theme"))
        var theme: String = "light"
    }
}

enum ReadmeCoreConcepts {
    final class Model {
        @GraphStored var count: Int = 0
        @GraphStored var name: String = ""
        @GraphComputed var doubled: Int

        init() {
            $doubled = .init { [$count] _ in $count.wrappedValue * 2 }
        }

        func setCount() {
            count = 10  // Dependents are notified
        }
    }

    @MainActor
    static func reactiveTracking(_ model: Model) -> AnyCancellable {
        let subscription = withGraphTracking {
          withGraphTrackingGroup {
            print("Changed: \(model.count), \(model.name)")
          }
        }
        return subscription
    }
}

enum ReadmeUIKitIntegration {
    struct Item: Equatable {
        var name: String
    }

    final class ViewModel {
        @GraphStored var items: [Item] = []
    }

    final class TableView {
        var reloads = 0
        func reloadData() { reloads += 1 }
    }

    @MainActor
    class ViewController {
      private let viewModel = ViewModel()
      private var subscription: AnyCancellable?
      let tableView = TableView()

      func viewDidLoad() {
        subscription = withGraphTracking {
          withGraphTrackingMap {
            self.viewModel.items  // ported: `self.` (an escaping closure; the README's does not compile either)
          } onChange: { [weak self] items in
            self?.tableView.reloadData()
          }
        }
      }

      func add(_ item: Item) { viewModel.items.append(item) }
    }
}

enum ReadmeNestedTracking {
    final class ViewModel {
        @GraphStored var featureEnabled: Bool = false
        @GraphStored var featureValue: Int = 0
    }

    @MainActor
    static func track(_ viewModel: ViewModel, printed: @escaping (Int) -> Void) -> AnyCancellable {
        withGraphTracking {
            withGraphTrackingGroup {
              if viewModel.featureEnabled {
                withGraphTrackingGroup {
                  // Only tracked when featureEnabled is true
                  print("Feature value: \(viewModel.featureValue)")
                  printed(viewModel.featureValue)
                }
              }
            }
        }
    }
}

enum ReadmeStateSharing {
    struct Item {
        var name: String
    }

    final class DataService {
        @GraphStored var items: [Item] = []
    }

    final class ViewModel {
      @GraphStored var items: [Item]

      init(service: DataService) {
        $items = service.$items  // Shares the same node
      }
    }
}

enum DocCDocumentation {
    final class CounterViewModel {
      @GraphStored
      var count: Int = 0

      @GraphComputed
      var isEven: Bool

      init() {
        self.$isEven = .init { [$count] _ in
          $count.wrappedValue % 2 == 0
        }
      }

      func increment() {
        count += 1 // isEven automatically updates
      }
    }
}

enum DocCQuickStart {
    final class CounterViewModel {
      @GraphStored
      var count: Int = 0

      @GraphComputed
      var isEven: Bool

      @GraphComputed
      var displayText: String

      init() {
        // Define how isEven is computed
        self.$isEven = .init { [$count] _ in
          $count.wrappedValue % 2 == 0
        }

        // Define how displayText is computed
        self.$displayText = .init { [$count, $isEven] _ in
          let number = $count.wrappedValue
          let parity = $isEven.wrappedValue ? "even" : "odd"
          return "Count: \(number) (\(parity))"
        }
      }

      func increment() {
        count += 1
        // isEven and displayText automatically update!
      }

      func decrement() {
        count -= 1
        // isEven and displayText automatically update!
      }
    }

    final class SettingsViewModel {
      // This value persists to UserDefaults automatically
      @GraphStored(backed: .userDefaults(key: "theme"))
      var theme: String = "light"

      @GraphComputed
      var isDarkMode: Bool

      init() {
        self.$isDarkMode = .init { [$theme] _ in
          $theme.wrappedValue == "dark"
        }
      }
    }
}

enum DocCCoreConcepts {
    static func storedBasics() -> Int {
        // Creating a stored node directly
        let counter = Stored(wrappedValue: 0)

        // Reading the value
        let currentCount = counter.wrappedValue // 0

        // Updating the value
        counter.wrappedValue = 1
        return currentCount + counter.wrappedValue * 10
    }

    final class UserProfile {
      @GraphStored
      var name: String = ""

      @GraphStored
      var email: String = ""

      @GraphStored
      var age: Int = 0
    }

    static func profileUsage() -> UserProfile {
        // Usage
        let profile = UserProfile()
        profile.name = "John Doe"
        profile.email = "john@example.com"
        profile.age = 30
        return profile
    }

    final class AppSettings {
      // This value persists across app launches
      @GraphStored(backed: .userDefaults(key: "userName"))
      var userName: String = ""

      // Computed properties work with persistent storage too
      @GraphComputed
      var welcomeMessage: String

      init() {
        self.$welcomeMessage = .init { [$userName] _ in
          let name = $userName.wrappedValue
          return name.isEmpty ? "Welcome!" : "Welcome, \(name)!"
        }
      }
    }

    static func computedBasics() -> [String] {
        let firstName = Stored(wrappedValue: "John")
        let lastName = Stored(wrappedValue: "Doe")

        // This computed node depends on firstName and lastName
        let fullName = Computed { _ in
            "\(firstName.wrappedValue) \(lastName.wrappedValue)"
        }

        print(fullName.wrappedValue) // "John Doe"
        let before = fullName.wrappedValue

        // When a dependency changes, the computed value updates automatically
        firstName.wrappedValue = "Jane"
        print(fullName.wrappedValue) // "Jane Doe"
        return [before, fullName.wrappedValue]
    }

    final class PersonViewModel {
      @GraphStored
      var firstName: String = ""

      @GraphStored
      var lastName: String = ""

      @GraphComputed
      var fullName: String

      @GraphComputed
      var initials: String

      init() {
        // Define how fullName is computed
        self.$fullName = .init { [$firstName, $lastName] _ in
          "\($firstName.wrappedValue) \($lastName.wrappedValue)"
        }

        // Define how initials is computed
        self.$initials = .init { [$firstName, $lastName] _ in
          let first = $firstName.wrappedValue.first?.uppercased() ?? ""
          let last = $lastName.wrappedValue.first?.uppercased() ?? ""
          return "\(first)\(last)"
        }
      }
    }

    struct CartItem {
        var price: Double
    }

    final class ShoppingCartViewModel {
      @GraphStored
      var items: [CartItem] = []

      @GraphStored
      var taxRate: Double = 0.08

      @GraphComputed
      var subtotal: Double

      @GraphComputed
      var tax: Double

      @GraphComputed
      var total: Double

      init() {
        // subtotal depends on items
        self.$subtotal = .init { [$items] _ in
          $items.wrappedValue.reduce(0) { $0 + $1.price }
        }

        // tax depends on subtotal and taxRate
        self.$tax = .init { [$subtotal, $taxRate] _ in
          $subtotal.wrappedValue * $taxRate.wrappedValue
        }

        // total depends on subtotal and tax
        self.$total = .init { [$subtotal, $tax] _ in
          $subtotal.wrappedValue + $tax.wrappedValue
        }
      }
    }

    @MainActor
    static func howItWorks(counter: Stored<Int>, featureEnabled: Stored<Bool>, featureData: Stored<String>,
                           printed: @escaping (String) -> Void) -> AnyCancellable {
        let subscription = withGraphTracking {
          withGraphTrackingGroup {
            // This code runs initially and re-runs when any accessed node changes

            // Always tracked
            print("Count: \(counter.wrappedValue)")
            printed("Count: \(counter.wrappedValue)")

            // Conditionally tracked - only when enabled
            if featureEnabled.wrappedValue {
              print("Feature data: \(featureData.wrappedValue)")
              printed("Feature data: \(featureData.wrappedValue)")
            }
          }
        }
        return subscription
    }

    struct Item {}
    struct User {
        var isPremium: Bool
    }

    final class DataProcessor {
      @GraphStored var isEnabled: Bool = false
      @GraphStored var data: [Item] = []
      @GraphStored var user: User?
    }

    final class Analysis: @unchecked Sendable {
        var log: [String] = []
    }

    @MainActor
    static func dynamicTracking(_ processor: DataProcessor, _ analysis: Analysis) -> AnyCancellable {
        func performPremiumAnalysis(_ items: [Item]) { analysis.log.append("premium \(items.count)") }
        func performBasicAnalysis(_ items: [Item]) { analysis.log.append("basic \(items.count)") }
        func updateItemCount(_ count: Int) { analysis.log.append("count \(count)") }

        let subscription = withGraphTracking {
          withGraphTrackingGroup {
            // Only process when enabled
            if processor.isEnabled {
              let items = processor.data
              print("Processing \(items.count) items")

              // Only track premium features for premium users
              if processor.user?.isPremium == true {
                performPremiumAnalysis(items)
              } else {
                performBasicAnalysis(items)
              }
            }

            // Always update UI
            updateItemCount(processor.data.count)
          }
        }
        return subscription
    }
}

enum DocCMigration {
    final class UserViewModel {
      @GraphStored
      var name: String = ""

      @GraphStored
      var email: String = ""

      @GraphComputed
      var isValid: Bool

      init() {
        self.$isValid = .init { [$name, $email] _ in
          !$name.wrappedValue.isEmpty && $email.wrappedValue.contains("@")
        }
      }
    }

    final class Label { var text: String? }
    final class Button { var isEnabled = true }

    @MainActor
    final class ViewController {
      let viewModel = UserViewModel()
      private var subscription: AnyCancellable?
      let nameLabel = Label()
      let emailLabel = Label()
      let submitButton = Button()

      func setupObservation() {
        subscription = withGraphTracking {
          withGraphTrackingMap {
            self.viewModel.$name.wrappedValue  // ported: `self.`
          } onChange: { [weak self] name in
            self?.nameLabel.text = name
          }

          withGraphTrackingMap {
            self.viewModel.$email.wrappedValue  // ported: `self.`
          } onChange: { [weak self] email in
            self?.emailLabel.text = email
          }

          withGraphTrackingMap {
            self.viewModel.$isValid.wrappedValue  // ported: `self.`
          } onChange: { [weak self] isValid in
            self?.submitButton.isEnabled = isValid
          }
        }
      }

      // No explicit cleanup needed - subscription handles it
    }

    struct CartItem {
        var price: Double
        var quantity: Int
    }

    final class ShoppingCartViewModel {
      @GraphStored
      var items: [CartItem] = []

      @GraphStored
      var taxRate: Double = 0.08

      @GraphComputed
      var subtotal: Double

      @GraphComputed
      var tax: Double

      @GraphComputed
      var total: Double

      init() {
        self.$subtotal = .init { [$items] _ in
          $items.wrappedValue.reduce(0) { $0 + ($1.price * Double($1.quantity)) }
        }

        self.$tax = .init { [$subtotal, $taxRate] _ in
          $subtotal.wrappedValue * $taxRate.wrappedValue
        }

        self.$total = .init { [$subtotal, $tax] _ in
          $subtotal.wrappedValue + $tax.wrappedValue
        }
      }
    }

    // Step 2, after
    final class ViewModel {
      @GraphStored
      var count: Int = 0

      @GraphComputed
      var isEven: Bool

      init() {
        self.$isEven = .init { [$count] _ in
          $count.wrappedValue % 2 == 0
        }
      }
    }

    // Step 4, after
    @MainActor
    static func step4(node: Stored<Int>, handle: @escaping (Int) -> Void) -> AnyCancellable {
        withGraphTracking {
          withGraphTrackingMap {
            node.wrappedValue
          } onChange: { value in
            // Handle changes
            handle(value)
          }
        }
    }
}
