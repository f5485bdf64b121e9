import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `@GraphStored` and `@GraphComputed` expand to, and what they refuse.
@Suite("graph macro expansion")
struct GraphMacroExpansionTests {
    @Test("@GraphStored in memory: accessors with an init accessor, and the $ node")
    func storedMemory() {
        expectExpansion(
            """
            final class Model {
                @GraphStored
                var count: Int = 0
            }
            """,
            expandedSource: """
            final class Model {
                var count: Int {
                    @storageRestrictions(accesses: $count)
                    init(initialValue) {
                        $count.wrappedValue = initialValue
                    }
                    get {
                        return $count.wrappedValue
                    }
                    set {
                        $count.wrappedValue = newValue
                    }
                }

                @StateGraph.GraphIgnored let $count: StateGraph.Stored<Int> = .init(name: "count", wrappedValue: 0)
            }
            """)
    }

    @Test("@GraphStored folds willSet and didSet into its setter, around the node's write")
    func storedObservers() {
        expectExpansion(
            """
            final class Model {
                @GraphStored var count: Int = 0 {
                    willSet(next) { print(next) }
                    didSet { print(oldValue, count) }
                }
            }
            """,
            // The test expansion keeps the observers' text; the compiler drops them once the macro has
            // given the property a getter and a setter (StoredObserverTests runs them).
            expandedSource: """
            final class Model {
                var count: Int {
                    willSet(next) { print(next) }
                    didSet { print(oldValue, count) }
                    @storageRestrictions(accesses: $count)
                    init(initialValue) {
                        $count.wrappedValue = initialValue
                    }

                    get {
                        return $count.wrappedValue
                    }

                    set(__graphStoredNewValue) {
                        do {
                            let next: Int = __graphStoredNewValue
                            print(next)
                        }
                        let oldValue: Int = $count.wrappedValue
                        $count.wrappedValue = __graphStoredNewValue
                        do {
                            print(oldValue, count)
                        }
                    }
                }

                @StateGraph.GraphIgnored let $count: StateGraph.Stored<Int> = .init(name: "count", wrappedValue: 0)
            }
            """)
    }

    @Test("@GraphStored on a static or a top-level property: no init accessor (no initializer can assign it), a static or global node")
    func storedStaticAndTopLevel() {
        expectExpansion(
            """
            enum Settings {
                @GraphStored static var volume: Int = 3
            }
            """,
            expandedSource: """
            enum Settings {
                static var volume: Int {
                    get {
                        return $volume.wrappedValue
                    }
                    set {
                        $volume.wrappedValue = newValue
                    }
                }

                @StateGraph.GraphIgnored static let $volume: StateGraph.Stored<Int> = .init(name: "volume", wrappedValue: 3)
            }
            """)
        expectExpansion(
            """
            @GraphStored var count: Int = 1
            """,
            expandedSource: """
            var count: Int {
                get {
                    return $count.wrappedValue
                }
                set {
                    $count.wrappedValue = newValue
                }
            }

            @StateGraph.GraphIgnored let $count: StateGraph.Stored<Int> = .init(name: "count", wrappedValue: 1)
            """)
    }

    @Test("@GraphStored(backed: .memory) is the same as no argument")
    func storedExplicitMemory() {
        expectExpansion(
            """
            final class Model {
                @GraphStored(backed: .memory)
                public var name: String?
            }
            """,
            expandedSource: """
            final class Model {
                public var name: String? {
                    @storageRestrictions(accesses: $name)
                    init(initialValue) {
                        $name.wrappedValue = initialValue
                    }
                    get {
                        return $name.wrappedValue
                    }
                    set {
                        $name.wrappedValue = newValue
                    }
                }

                @StateGraph.GraphIgnored public let $name: StateGraph.Stored<String?> = .init(name: "name", wrappedValue: nil)
            }
            """)
    }

    @Test("@GraphStored(backed: .userDefaults(key:)): get/set only, the initial value is the default")
    func storedUserDefaults() {
        expectExpansion(
            """
            final class Settings {
                @GraphStored(backed: .userDefaults(key: "theme"))
                var theme: String = "light"
            }
            """,
            expandedSource: """
            final class Settings {
                var theme: String {
                    get {
                        return $theme.wrappedValue
                    }
                    set {
                        $theme.wrappedValue = newValue
                    }
                }

                @StateGraph.GraphIgnored let $theme: StateGraph.Stored<String> = .init(name: "theme", backing: .userDefaults(key: "theme"), defaultValue: "light")
            }
            """)
    }

    @Test("@GraphStored(backed: .userDefaults(suite:key:)) with private(set): the node is private")
    func storedSuite() {
        expectExpansion(
            """
            final class Settings {
                @GraphStored(backed: .userDefaults(suite: "com.myapp.settings", key: "apiEndpoint"))
                public private(set) var apiEndpoint: String = "https://api.example.com"
            }
            """,
            expandedSource: """
            final class Settings {
                public private(set) var apiEndpoint: String {
                    get {
                        return $apiEndpoint.wrappedValue
                    }
                    set {
                        $apiEndpoint.wrappedValue = newValue
                    }
                }

                @StateGraph.GraphIgnored private let $apiEndpoint: StateGraph.Stored<String> = .init(name: "apiEndpoint", backing: .userDefaults(suite: "com.myapp.settings", key: "apiEndpoint"), defaultValue: "https://api.example.com")
            }
            """)
    }

    @Test("@GraphComputed: a getter and an uninitialized $ node for init to assign")
    func computed() {
        expectExpansion(
            """
            final class Model {
                @GraphComputed
                var displayName: String
            }
            """,
            expandedSource: """
            final class Model {
                var displayName: String {
                    get {
                        return $displayName.wrappedValue
                    }
                }

                @StateGraph.GraphIgnored let $displayName: StateGraph.Computed<String>
            }
            """)
    }

    @Test("refusals: let, no type, no value, an initialized @GraphComputed")
    func diagnostics() {
        expectExpansion(
            """
            final class Model {
                @GraphStored let fixed: Int = 1
            }
            """,
            expandedSource: """
            final class Model {
                let fixed: Int = 1
            }
            """,
            diagnostics: [DiagnosticSpec(message: "a graph node property must be 'var': its value changes (the node itself is the generated 'let $name')",
                                         line: 2, column: 18, fixIts: [FixItSpec(message: "change 'let' to 'var'")])])
        expectExpansion(
            """
            final class Model {
                @GraphStored var count = 0
            }
            """,
            expandedSource: """
            final class Model {
                var count = 0
            }
            """,
            diagnostics: [DiagnosticSpec(message: "a graph node property needs a type annotation, e.g. 'var count: Int = 0'",
                                         line: 2, column: 22)])
        expectExpansion(
            """
            final class Model {
                @GraphStored var count: Int
            }
            """,
            expandedSource: """
            final class Model {
                var count: Int
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@GraphStored needs an initial value (the default for a suite-backed property); only an optional may omit it",
                                         line: 2, column: 5)])
        expectExpansion(
            """
            final class Model {
                @GraphComputed var total: Int = 0
            }
            """,
            expandedSource: """
            final class Model {
                var total: Int = 0
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@GraphComputed has no initial value: set its rule in init with 'self.$name = .init { ... }'",
                                         line: 2, column: 35, fixIts: [FixItSpec(message: "remove the initial value")])])
    }
}
