import Foundation
import StateGraph
import Testing

/// swift-state-graph 0.25.0's documented examples (`PeerDocumentedExamples.swift`) behave as their
/// text says. Tracking scopes deliver later runs on the main actor here (the tests are main-actor
/// isolated, as UI code is), so each check first lets the main actor run what is queued.
@MainActor
@Suite("swift-state-graph's documented examples")
struct PeerDocumentedExamplesTests {
    func drain() async { await TrackingScopeTests.drainMainActor() }

    @Test("README: Quick Start, dependency tracking, drop-in enhancement, stored and computed nodes")
    func readmeModels() {
        #expect(ReadmeQuickStart.usage() == false)
        let counter = ReadmeQuickStart.Counter()
        counter.count = 4
        #expect(counter.isEven)
        let person = ReadmeDependencyTracking.Person()
        #expect(person.fullName == "John Doe")
        person.firstName = "Jane"
        #expect(person.fullName == "Jane Doe")
        let user = ReadmeDropIn.UserViewModel()
        #expect(!user.isValid)
        user.name = "Ada"
        #expect(user.isValid)
        let model = ReadmeCoreConcepts.Model()
        model.setCount()
        #expect(model.doubled == 20)
    }

    @Test("README: the UIKit snippet's group prints now and after each change")
    func readmeTracking() async {
        let screen = ReadmeUIKitTracking.Screen()
        screen.bind()
        #expect(screen.printed == [0])
        screen.counter.count = 3
        await drain()
        #expect(screen.printed == [0, 3])
        screen.subscription?.cancel()
        screen.counter.count = 4
        await drain()
        #expect(screen.printed == [0, 3], "a cancelled subscription prints nothing more")

        let model = ReadmeCoreConcepts.Model()
        let subscription = ReadmeCoreConcepts.reactiveTracking(model)
        model.name = "changed"
        await drain()
        subscription.cancel()
    }

    @Test("README: UIKit integration reloads the table for each change of items")
    func readmeUIKitIntegration() async {
        let controller = ReadmeUIKitIntegration.ViewController()
        controller.viewDidLoad()
        #expect(controller.tableView.reloads == 1, "the first value is handled at once")
        controller.add(.init(name: "a"))
        await drain()
        #expect(controller.tableView.reloads == 2)
    }

    @Test("README: a nested group is tracked only while its outer branch runs it")
    func readmeNestedTracking() async {
        let viewModel = ReadmeNestedTracking.ViewModel()
        var printed: [Int] = []
        let subscription = ReadmeNestedTracking.track(viewModel) { printed.append($0) }
        viewModel.featureValue = 1
        await drain()
        #expect(printed.isEmpty, "featureValue is not read while the feature is off")
        viewModel.featureEnabled = true
        await drain()
        #expect(printed == [1])
        viewModel.featureValue = 2
        await drain()
        #expect(printed == [1, 2])
        subscription.cancel()
    }

    @Test("README: state sharing — two models on one node")
    func readmeStateSharing() {
        let service = ReadmeStateSharing.DataService()
        let viewModel = ReadmeStateSharing.ViewModel(service: service)
        service.items.append(.init(name: "shared"))
        #expect(viewModel.items.map(\.name) == ["shared"])
        #expect(viewModel.$items === service.$items)
    }

    @Test("README, Quick-Start and Core-Concepts: values kept in the suite survive a new instance")
    func persistentExamples() throws {
        try withSuiteFolder { _ in
            ReadmePersistent.Settings().theme = "dark"
            #expect(ReadmePersistent.Settings().theme == "dark")
            let settings = DocCQuickStart.SettingsViewModel()
            #expect(settings.isDarkMode, "the same key: the README's write shows here")
            let app = DocCCoreConcepts.AppSettings()
            #expect(app.welcomeMessage == "Welcome!")
            app.userName = "Ada"
            #expect(DocCCoreConcepts.AppSettings().welcomeMessage == "Welcome, Ada!")
        }
    }

    @Test("DocC: Documentation and Quick-Start counters, Core-Concepts nodes and models")
    func doccModels() {
        let counter = DocCDocumentation.CounterViewModel()
        counter.increment()
        #expect(!counter.isEven)
        let quick = DocCQuickStart.CounterViewModel()
        #expect(quick.displayText == "Count: 0 (even)")
        quick.increment()
        #expect(quick.displayText == "Count: 1 (odd)")
        quick.decrement()
        quick.decrement()
        #expect(quick.displayText == "Count: -1 (odd)")
        #expect(DocCCoreConcepts.storedBasics() == 10)
        let profile = DocCCoreConcepts.profileUsage()
        #expect((profile.name, profile.email, profile.age) == ("John Doe", "john@example.com", 30))
        #expect(DocCCoreConcepts.computedBasics() == ["John Doe", "Jane Doe"])
        let person = DocCCoreConcepts.PersonViewModel()
        person.firstName = "ada"
        person.lastName = "lovelace"
        #expect(person.fullName == "ada lovelace" && person.initials == "AL")
        let cart = DocCCoreConcepts.ShoppingCartViewModel()
        cart.items = [.init(price: 10), .init(price: 15)]
        #expect(cart.subtotal == 25)
        #expect(abs(cart.total - 27) < 1e-9)
    }

    @Test("Core-Concepts: How It Works and Dynamic Dependency Tracking re-run on what they read")
    func doccTracking() async {
        let counter = Stored(wrappedValue: 0)
        let featureEnabled = Stored(wrappedValue: false)
        let featureData = Stored(wrappedValue: "data")
        var printed: [String] = []
        let howItWorks = DocCCoreConcepts.howItWorks(counter: counter, featureEnabled: featureEnabled,
                                                     featureData: featureData) { printed.append($0) }
        #expect(printed == ["Count: 0"])
        featureData.wrappedValue = "ignored"
        await drain()
        #expect(printed == ["Count: 0"], "featureData is not read while the feature is off")
        featureEnabled.wrappedValue = true
        await drain()
        #expect(printed == ["Count: 0", "Count: 0", "Feature data: ignored"])
        howItWorks.cancel()

        let processor = DocCCoreConcepts.DataProcessor()
        let analysis = DocCCoreConcepts.Analysis()
        let dynamic = DocCCoreConcepts.dynamicTracking(processor, analysis)
        #expect(analysis.log == ["count 0"])
        processor.user = .init(isPremium: true)
        await drain()
        #expect(analysis.log == ["count 0"], "user is not read while processing is off")
        processor.isEnabled = true
        await drain()
        #expect(analysis.log == ["count 0", "premium 0", "count 0"])
        dynamic.cancel()
    }

    @Test("Migration-from-Observable: the view controller's maps, the cart, steps 2 and 4")
    func doccMigration() async {
        let controller = DocCMigration.ViewController()
        controller.setupObservation()
        #expect(controller.nameLabel.text == "" && !controller.submitButton.isEnabled)
        controller.viewModel.name = "Ada"
        controller.viewModel.email = "ada@example.com"
        await drain()
        #expect(controller.nameLabel.text == "Ada" && controller.emailLabel.text == "ada@example.com")
        #expect(controller.submitButton.isEnabled)
        let cart = DocCMigration.ShoppingCartViewModel()
        cart.items = [.init(price: 2, quantity: 3)]
        #expect(cart.subtotal == 6)
        let model = DocCMigration.ViewModel()
        model.count = 2
        #expect(model.isEven)
        let node = Stored(wrappedValue: 1)
        var handled: [Int] = []
        let subscription = DocCMigration.step4(node: node) { handled.append($0) }
        node.wrappedValue = 5
        await drain()
        #expect(handled == [1, 5])
        subscription.cancel()
    }
}
