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

                @StateGraph.GraphIgnored let $theme: StateGraph.StoredNode<String, StateGraph.UserDefaultsStorage<String>> = .init(name: "theme", backing: .userDefaults(key: "theme"), defaultValue: "light")
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

                @StateGraph.GraphIgnored private let $apiEndpoint: StateGraph.StoredNode<String, StateGraph.UserDefaultsStorage<String>> = .init(name: "apiEndpoint", backing: .userDefaults(suite: "com.myapp.settings", key: "apiEndpoint"), defaultValue: "https://api.example.com")
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

    @Test("refusals: let, no type, an initialized @GraphComputed")
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

    @Test("@GraphStored without a value on a class's property: an initializes init accessor makes the node")
    func storedWithoutValue() {
        expectExpansion(
            """
            final class Model {
                @GraphStored var count: Int
            }
            """,
            expandedSource: """
            final class Model {
                var count: Int {
                    @storageRestrictions(initializes: $count)
                    init(initialValue) {
                        $count = .init(name: "count", wrappedValue: initialValue)
                    }
                    get {
                        return $count.wrappedValue
                    }
                    set {
                        $count.wrappedValue = newValue
                    }
                }

                @StateGraph.GraphIgnored let $count: StateGraph.Stored<Int>
            }
            """)
    }

    @Test("@GraphStored in a struct: an initializes init accessor (so the memberwise init takes it), a nonmutating setter")
    func storedInStruct() {
        // The test expansion drops `= 0`; the compiler keeps it as the init accessor's default, which
        // the memberwise initializer and any initializer that leaves the property alone pass to it.
        expectExpansion(
            """
            struct Point {
                @GraphStored var x: Int = 0
            }
            """,
            expandedSource: """
            struct Point {
                var x: Int {
                    @storageRestrictions(initializes: $x)
                    init(initialValue) {
                        $x = .init(name: "x", wrappedValue: initialValue)
                    }
                    get {
                        return $x.wrappedValue
                    }
                    nonmutating set {
                        $x.wrappedValue = newValue
                    }
                }

                @StateGraph.GraphIgnored private(set) var $x: StateGraph.Stored<Int>
            }
            """)
        expectExpansion(
            """
            public struct Point {
                @GraphStored public var y: Int
                @GraphStored private var label: String? {
                    didSet { print(oldValue as Any) }
                }
            }
            """,
            expandedSource: """
            public struct Point {
                public var y: Int {
                    @storageRestrictions(initializes: $y)
                    init(initialValue) {
                        $y = .init(name: "y", wrappedValue: initialValue)
                    }
                    get {
                        return $y.wrappedValue
                    }
                    nonmutating set {
                        $y.wrappedValue = newValue
                    }
                }

                @StateGraph.GraphIgnored public let $y: StateGraph.Stored<Int>
                private var label: String? {
                    didSet { print(oldValue as Any) }
                    @storageRestrictions(initializes: $label)
                    init(initialValue) {
                        $label = .init(name: "label", wrappedValue: initialValue)
                    }

                    get {
                        return $label.wrappedValue
                    }

                    nonmutating set(__graphStoredNewValue) {
                        let oldValue: String? = $label.wrappedValue
                        $label.wrappedValue = __graphStoredNewValue
                        do {
                            print(oldValue as Any)
                        }
                    }
                }

                @StateGraph.GraphIgnored private var $label: StateGraph.Stored<String?>
            }
            """)
    }

    @Test("@GraphStored(backed:) in a struct: get and a nonmutating set, no init accessor; a struct's static property: a plain set")
    func storedInStructBackedAndStatic() {
        expectExpansion(
            """
            struct Preferences {
                @GraphStored(backed: .userDefaults(key: "k")) var v: Int = 0
                @GraphStored static var shared: Int = 1
            }
            """,
            expandedSource: """
            struct Preferences {
                var v: Int {
                    get {
                        return $v.wrappedValue
                    }
                    nonmutating set {
                        $v.wrappedValue = newValue
                    }
                }

                @StateGraph.GraphIgnored let $v: StateGraph.StoredNode<Int, StateGraph.UserDefaultsStorage<Int>> = .init(name: "v", backing: .userDefaults(key: "k"), defaultValue: 0)
                static var shared: Int {
                    get {
                        return $shared.wrappedValue
                    }
                    set {
                        $shared.wrappedValue = newValue
                    }
                }

                @StateGraph.GraphIgnored static let $shared: StateGraph.Stored<Int> = .init(name: "shared", wrappedValue: 1)
            }
            """)
    }

    @Test("@GraphStored on an implicitly unwrapped optional: a node of the optional, nil when no value is given")
    func storedImplicitlyUnwrapped() {
        expectExpansion(
            """
            final class Model {
                @GraphStored var name: String! = "a"
                @GraphStored var owner: Owner! {
                    willSet { print(newValue as Any) }
                    didSet { print(oldValue as Any) }
                }
            }
            """,
            expandedSource: """
            final class Model {
                var name: String! {
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

                @StateGraph.GraphIgnored let $name: StateGraph.Stored<String?> = .init(name: "name", wrappedValue: "a")
                var owner: Owner! {
                    willSet { print(newValue as Any) }
                    didSet { print(oldValue as Any) }
                    @storageRestrictions(accesses: $owner)
                    init(initialValue) {
                        $owner.wrappedValue = initialValue
                    }

                    get {
                        return $owner.wrappedValue
                    }

                    set(__graphStoredNewValue) {
                        do {
                            let newValue: Owner! = __graphStoredNewValue
                            print(newValue as Any)
                        }
                        let oldValue: Owner! = $owner.wrappedValue
                        $owner.wrappedValue = __graphStoredNewValue
                        do {
                            print(oldValue as Any)
                        }
                    }
                }

                @StateGraph.GraphIgnored let $owner: StateGraph.Stored<Owner?> = .init(name: "owner", wrappedValue: nil)
            }
            """)
        expectExpansion(
            """
            final class Model {
                @GraphComputed var title: String!
            }
            """,
            expandedSource: """
            final class Model {
                var title: String! {
                    get {
                        return $title.wrappedValue
                    }
                }

                @StateGraph.GraphIgnored let $title: StateGraph.Computed<String?>
            }
            """)
    }

    @Test("refusals: no value where no initializer can assign it, or for a suite's default")
    func storedNeedsValue() {
        let staticOrTopLevel = "a static or top-level @GraphStored property needs an initial value, since no initializer can assign it; only an optional may omit it"
        expectExpansion(
            """
            enum Settings {
                @GraphStored static var volume: Int
            }
            """,
            expandedSource: """
            enum Settings {
                static var volume: Int
            }
            """,
            diagnostics: [DiagnosticSpec(message: staticOrTopLevel, line: 2, column: 5)])
        expectExpansion(
            """
            @GraphStored var count: Int
            """,
            expandedSource: """
            var count: Int
            """,
            diagnostics: [DiagnosticSpec(message: staticOrTopLevel, line: 1, column: 1)])
        expectExpansion(
            """
            final class Settings {
                @GraphStored(backed: .userDefaults(key: "theme")) var theme: String
            }
            """,
            expandedSource: """
            final class Settings {
                var theme: String
            }
            """,
            diagnostics: [DiagnosticSpec(message: "a suite-backed @GraphStored property needs an initial value: it is the default while the suite holds none; only an optional may omit it",
                                         line: 2, column: 5)])
        // An optional may still omit its value, `nil`, everywhere.
        expectExpansion(
            """
            enum Settings {
                @GraphStored static var name: String?
            }
            """,
            expandedSource: """
            enum Settings {
                static var name: String? {
                    get {
                        return $name.wrappedValue
                    }
                    set {
                        $name.wrappedValue = newValue
                    }
                }

                @StateGraph.GraphIgnored static let $name: StateGraph.Stored<String?> = .init(name: "name", wrappedValue: nil)
            }
            """)
    }

    @Test("refusals: weak, unowned and lazy properties, instance properties of an enum or an extension, a static @GraphComputed")
    func refusedForms() {
        let weakOrUnowned = "a graph node property cannot be 'weak' or 'unowned': its node holds the value strongly; keep a weak or unowned reference as a plain property marked @GraphIgnored"
        expectExpansion(
            """
            final class Model {
                @GraphStored weak var owner: Owner?
            }
            """,
            expandedSource: """
            final class Model {
                weak var owner: Owner?
            }
            """,
            diagnostics: [DiagnosticSpec(message: weakOrUnowned, line: 2, column: 18)])
        expectExpansion(
            """
            final class Model {
                @GraphStored unowned var owner: Owner
            }
            """,
            expandedSource: """
            final class Model {
                unowned var owner: Owner
            }
            """,
            diagnostics: [DiagnosticSpec(message: weakOrUnowned, line: 2, column: 18)])
        expectExpansion(
            """
            final class Model {
                @GraphComputed unowned(unsafe) var owner: Owner
                @GraphComputed weak var parent: Owner?
            }
            """,
            expandedSource: """
            final class Model {
                unowned(unsafe) var owner: Owner
                weak var parent: Owner?
            }
            """,
            diagnostics: [DiagnosticSpec(message: weakOrUnowned, line: 2, column: 20),
                          DiagnosticSpec(message: weakOrUnowned, line: 3, column: 20)])
        expectExpansion(
            """
            final class Model {
                @GraphStored lazy var items: [Int] = []
            }
            """,
            expandedSource: """
            final class Model {
                lazy var items: [Int] = []
            }
            """,
            diagnostics: [DiagnosticSpec(message: "a graph node property cannot be 'lazy': its node is made with the instance; give it an initial value, or assign it in init",
                                         line: 2, column: 18)])
        let noStorage = "an enum, an extension or a protocol cannot hold a graph node property's node: declare the property in the class, struct or actor itself, or make it 'static'"
        expectExpansion(
            """
            enum Mode {
                @GraphStored var level: Int = 0
            }
            extension Model {
                @GraphStored var extra: Int = 0
            }
            """,
            expandedSource: """
            enum Mode {
                var level: Int = 0
            }
            extension Model {
                var extra: Int = 0
            }
            """,
            diagnostics: [DiagnosticSpec(message: noStorage, line: 2, column: 5),
                          DiagnosticSpec(message: noStorage, line: 5, column: 5)])
        let computedNotInstance = "@GraphComputed applies to an instance property of a class, struct or actor: its node gets its rule in init"
        expectExpansion(
            """
            final class Model {
                @GraphComputed static var total: Int
            }
            @GraphComputed var total: Int
            extension Model {
                @GraphComputed var other: Int
            }
            """,
            expandedSource: """
            final class Model {
                static var total: Int
            }
            var total: Int
            extension Model {
                var other: Int
            }
            """,
            diagnostics: [DiagnosticSpec(message: computedNotInstance, line: 2, column: 5),
                          DiagnosticSpec(message: computedNotInstance, line: 4, column: 1),
                          DiagnosticSpec(message: computedNotInstance, line: 6, column: 5)])
    }

    @Test("@GraphIgnored expands to nothing, on weak and unowned properties too")
    func ignored() {
        expectExpansion(
            """
            final class Model {
                @GraphIgnored weak var owner: Owner?
                @GraphIgnored unowned let parent: Owner
            }
            """,
            expandedSource: """
            final class Model {
                weak var owner: Owner?
                unowned let parent: Owner
            }
            """)
    }
}
