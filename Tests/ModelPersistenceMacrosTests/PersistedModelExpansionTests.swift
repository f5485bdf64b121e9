import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite struct PersistedModelExpansionTests {
    /// DocumentData's example made `final`, as every model had to be before: two persisted properties
    /// and an ignored one. A final class expands as before, plus `_PersistedRoot` and `_$persistedRoot`.
    @Test func finalSomeModel() {
        expectExpansion(
            """
            @PersistedModel
            final class SomeModel {
                var string: String
                var bool: Bool
                @PersistedIgnored var bool2: Bool
            }
            """,
            expandedSource: """
            final class SomeModel {
                var string: String {
                    @storageRestrictions(initializes: _string)
                    init(initialValue) {
                        _string = initialValue
                    }
                    get {
                        _$persistence.willRead(self)
                        access(keyPath: Self._$keyPath_string)
                        return _string
                    }
                    set {
                        _$persistence.willRead(self)
                        withMutation(keyPath: \\.string) {
                            _string = newValue
                        }
                        _$persistence.didWrite(self, key: "string")
                    }
                }

                @ModelPersistence._PersistedBacking @exclusivity(unchecked) private var _string: String

                private static let _$keyPath_string = \\SomeModel.string
                var bool: Bool {
                    @storageRestrictions(initializes: _bool)
                    init(initialValue) {
                        _bool = initialValue
                    }
                    get {
                        _$persistence.willRead(self)
                        access(keyPath: Self._$keyPath_bool)
                        return _bool
                    }
                    set {
                        _$persistence.willRead(self)
                        withMutation(keyPath: \\.bool) {
                            _bool = newValue
                        }
                        _$persistence.didWrite(self, key: "bool")
                    }
                }

                @ModelPersistence._PersistedBacking @exclusivity(unchecked) private var _bool: Bool

                private static let _$keyPath_bool = \\SomeModel.bool
            \(observedIgnored("bool2", "var bool2: Bool", backing: ": Bool"))

                public typealias _PersistedRoot = SomeModel

                public nonisolated final var _$persistedRoot: SomeModel {
                    self
                }

                public static let _$persistedDocumentName: String = "SomeModel"

                public static var _$persistedFields: [ModelPersistence.PersistedField<SomeModel>] {
                    [
                        ModelPersistence.PersistedField(key: "string", previousKeys: [], storage: \\SomeModel._string, observed: \\SomeModel.string),
                        ModelPersistence.PersistedField(key: "bool", previousKeys: [], storage: \\SomeModel._bool, observed: \\SomeModel.bool)
                    ]
                }

                public let _$persistence = ModelPersistence.PersistenceContext<SomeModel>()

                private let _$observationRegistrar = Observation.ObservationRegistrar()

                internal nonisolated func access<Member>(keyPath: KeyPath<SomeModel, Member>) {
                    _$observationRegistrar.access(self, keyPath: keyPath)
                }

                public nonisolated func withMutation<Member, T>(keyPath: KeyPath<SomeModel, Member>, _ mutation: () throws -> T) rethrows -> T {
                    try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
                }

                public func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: ModelPersistence.PersistedCodingKey.self)
                    try container._encodePersisted(self.string, forKey: "string")
                    try container._encodePersisted(self.bool, forKey: "bool")
                }

                public required init(from decoder: any Decoder) throws {
                    let container = try decoder.container(keyedBy: ModelPersistence.PersistedCodingKey.self)
                    self._string = try container._decodeRequiredPersisted(String.self, key: "string", previousKeys: [])
                    self._bool = try container._decodeRequiredPersisted(Bool.self, key: "bool", previousKeys: [])
                    self.bool2 = .init()
                }

                public static var `default`: SomeModel {
                    ModelPersistence.PersistedModelDefault.instance(of: SomeModel.self) {
                        try SomeModel(from: $0)
                    }
                }

                public static func loadDefault() throws(ModelPersistence.PersistenceError) -> SomeModel {
                    try ModelPersistence.PersistedModelDefault.load(SomeModel.self) {
                        try SomeModel(from: $0)
                    }
                }
            }

            extension SomeModel: ModelPersistence.PersistedModel, Observation.Observable {
            }

            """)
    }

    /// `@StorageName` names the file; `@PreviousKeys` lists earlier keys; `let` and static members are left alone.
    @Test func storageNameAndPreviousKeys() {
        expectExpansion(
            """
            @PersistedModel
            final class Profile {
                @StorageName static let storageName = "UserProfile"
                @PreviousKeys("name") var userName: String = ""
            }
            """,
            expandedSource: """
            final class Profile {
                static let storageName = "UserProfile"
                var userName: String {
                    @storageRestrictions(initializes: _userName)
                    init(initialValue) {
                        _userName = initialValue
                    }
                    get {
                        _$persistence.willRead(self)
                        access(keyPath: Self._$keyPath_userName)
                        return _userName
                    }
                    set {
                        _$persistence.willRead(self)
                        withMutation(keyPath: \\.userName) {
                            _userName = newValue
                        }
                        _$persistence.didWrite(self, key: "userName")
                    }
                }

                @ModelPersistence._PersistedBacking @exclusivity(unchecked) private var _userName: String = ""

                private static let _$keyPath_userName = \\Profile.userName

            \(plumbing("Profile", documentName: "UserProfile", fields: [
                #"ModelPersistence.PersistedField(key: "userName", previousKeys: ["name"], storage: \Profile._userName, observed: \Profile.userName)"#,
            ], coding: [encoding([("userName", "userName")])] + decoding("Profile", [
                #"try container._decodePersisted(into: &self._userName, key: "userName", previousKeys: ["name"])"#,
            ], implicitInit: true)))
            }

            \(conformances("Profile"))
            """)
    }

    @Test func structIsDiagnosedWithFixIt() {
        expectExpansion(
            """
            @PersistedModel
            struct Settings {
                var volume: Int = 5
            }
            """,
            expandedSource: """
            struct Settings {
                var volume: Int = 5
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@PersistedModel can only be applied to a class, not a struct: a model is shared by reference and saved when its properties are set", line: 2, column: 1, fixIts: [FixItSpec(message: "make it a class")])],
            fixedSource: """
            @PersistedModel
            class Settings {
                var volume: Int = 5
            }
            """)
    }

    /// DocumentData's own example is a plain `class`: accepted, with no diagnostic, expanded as a
    /// final class is (the protocol names the class through `_PersistedRoot`, not `Self`).
    @Test func nonFinalClassIsAccepted() {
        expectExpansion(
            """
            @PersistedModel
            class Settings {
                @PersistedIgnore var scratch: Int = 0
            }
            """,
            expandedSource: """
            class Settings {
            \(observedIgnored("scratch", "var scratch: Int", backing: ": Int = 0"))

            \(plumbing("Settings", coding: [encoding([])] + decoding("Settings", [], implicitInit: true, isFinal: false)))
            }

            \(conformances("Settings"))
            """)
    }

    /// DocumentData's example exactly as its article prints it: a class that is not `final`, and
    /// `@PersistedIgnore` (its spelling of `@PersistedIgnored`) on a line of its own. No diagnostics.
    @Test func originalSomeModelIsANonFinalClass() {
        expectExpansion(
            """
            @PersistedModel
            class SomeModel {
                var string: String
                var bool: Bool
                @PersistedIgnore
                var bool2: Bool

                init(string: String, bool: Bool, bool2: Bool) {
                    self.string = string
                    self.bool = bool
                    self.bool2 = bool2
                }
            }
            """,
            expandedSource: """
            class SomeModel {
                var string: String {
            \(accessors("string"))
                }

                @ModelPersistence._PersistedBacking @exclusivity(unchecked) private var _string: String

                private static let _$keyPath_string = \\SomeModel.string
                var bool: Bool {
            \(accessors("bool"))
                }

                @ModelPersistence._PersistedBacking @exclusivity(unchecked) private var _bool: Bool

                private static let _$keyPath_bool = \\SomeModel.bool
            \(observedIgnored("bool2", "var bool2: Bool", backing: ": Bool"))

                init(string: String, bool: Bool, bool2: Bool) {
                    self.string = string
                    self.bool = bool
                    self.bool2 = bool2
                }

            \(plumbing("SomeModel", fields: [
                #"ModelPersistence.PersistedField(key: "string", previousKeys: [], storage: \SomeModel._string, observed: \SomeModel.string)"#,
                #"ModelPersistence.PersistedField(key: "bool", previousKeys: [], storage: \SomeModel._bool, observed: \SomeModel.bool)"#,
            ], coding: [encoding([("string", "string"), ("bool", "bool")])] + decoding("SomeModel", [
                #"self._string = try container._decodeRequiredPersisted(String.self, key: "string", previousKeys: [])"#,
                #"self._bool = try container._decodeRequiredPersisted(Bool.self, key: "bool", previousKeys: [])"#,
                "self.bool2 = .init()",
            ], isFinal: false)))
            }

            \(conformances("SomeModel"))
            """)
    }

    /// A class whose superclass is not a persisted model (the compiler reports both conformances as
    /// missing) is a model of its own: its properties are persisted.
    @Test func subclassOfAPlainClassIsAModel() {
        expectExpansion(
            """
            @PersistedModel
            class Settings: Base {
                var volume: Int = 5
            }
            """,
            expandedSource: """
            class Settings: Base {
                var volume: Int {
            \(accessors("volume"))
                }

                @ModelPersistence._PersistedBacking @exclusivity(unchecked) private var _volume: Int = 5

                private static let _$keyPath_volume = \\Settings.volume

            \(plumbing("Settings", fields: [
                #"ModelPersistence.PersistedField(key: "volume", previousKeys: [], storage: \Settings._volume, observed: \Settings.volume)"#,
            ], coding: [encoding([("volume", "volume")])] + decoding("Settings", [
                #"try container._decodePersisted(into: &self._volume, key: "volume", previousKeys: [])"#,
            ], implicitInit: true, isFinal: false)))
            }

            \(conformances("Settings"))
            """)
    }

    /// A generic class cannot have static stored properties, so its getters keep the key path
    /// literal instead of a cached `_$keyPath_` member; the backing storage is unchecked as anywhere.
    @Test func genericClassKeepsTheKeyPathLiteral() {
        expectExpansion(
            """
            final class Box<Value> {
                @_PersistedProperty
                var volume: Int = 5
            }
            """,
            expandedSource: """
            final class Box<Value> {
                var volume: Int {
            \(accessors("volume", cached: false))
                }

                @ModelPersistence._PersistedBacking @exclusivity(unchecked) private var _volume: Int = 5
            }
            """)
    }

    /// On a subclass of a persisted model the compiler reports `PersistedModel` as already there: an
    /// error, and none of the members that would clash with the inherited ones. (The member-attribute
    /// role is not told about conformances, so a persistable property is still marked, and the compiler
    /// follows this error with its own about that property's accessors.)
    @Test func subclassOfPersistedModelIsDiagnosedWithFixIt() {
        expectExpansion(
            """
            @PersistedModel
            class Child: SomeModel {
                @PersistedIgnored var extra: Int = 0
            }
            """,
            expandedSource: """
            class Child: SomeModel {
            \(observedIgnored("extra", "var extra: Int", backing: ": Int = 0"))
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@PersistedModel cannot be applied to a subclass of a persisted model: the subclass already keeps the properties it inherits in its superclass's file, and its own stored properties would not be persisted; remove @PersistedModel, or declare the properties in the persisted class", line: 1, column: 1, fixIts: [FixItSpec(message: "remove @PersistedModel")])],
            fixedSource: """

            class Child: SomeModel {
                @PersistedIgnored var extra: Int = 0
            }
            """,
            macroSpecs: inheritedConformances)
    }

    @Test func observableTooIsAnError() {
        expectExpansion(
            """
            @PersistedModel @Observable
            final class Settings {
            }
            """,
            expandedSource: """
            @Observable
            final class Settings {
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@PersistedModel already makes the class Observable; remove @Observable", line: 1, column: 17, fixIts: [FixItSpec(message: "remove @Observable")])])
    }

    @Test(arguments: ["\"\"", "\"a/b\"", "\"..\"", "\"x\\0y\""])
    func invalidStorageNamesAreErrors(literal: String) {
        expectExpansion(
            """
            @PersistedModel
            final class Settings {
                @StorageName static let storageName = \(literal)
            }
            """,
            expandedSource: """
            final class Settings {
                static let storageName = \(literal)

            \(plumbing("Settings", coding: emptyFinalCoding("Settings")))
            }

            \(conformances("Settings"))
            """,
            diagnostics: [DiagnosticSpec(message: "@StorageName must be a file name: not empty, and without '/', '..' or NUL", line: 3, column: 43)])
    }

    @Test func interpolatedStorageNameIsAnError() {
        expectExpansion(
            """
            @PersistedModel
            final class Settings {
                @StorageName static let storageName = "A\\(1)"
            }
            """,
            expandedSource: """
            final class Settings {
                static let storageName = "A\\(1)"

            \(plumbing("Settings", coding: emptyFinalCoding("Settings")))
            }

            \(conformances("Settings"))
            """,
            diagnostics: [DiagnosticSpec(message: "@StorageName needs one string literal without interpolation, e.g. static let storageName = \"Settings\"", line: 3, column: 43)])
    }

    @Test func letPropertyWarnsWithFixIt() {
        expectExpansion(
            """
            @PersistedModel
            final class Settings {
                let id: Int = 1
            }
            """,
            expandedSource: """
            final class Settings {
                let id: Int = 1

            \(plumbing("Settings", coding: emptyFinalCoding("Settings")))
            }

            \(conformances("Settings"))
            """,
            diagnostics: [DiagnosticSpec(message: "'let' properties are not persisted; make it 'var' to persist it, or mark it @PersistedIgnored", line: 3, column: 5, severity: .warning, fixIts: [FixItSpec(message: "change 'let' to 'var'")])])
    }

    /// Properties the macro cannot persist are not skipped silently.
    @Test func observedAndMultiBindingPropertiesWarn() {
        expectExpansion(
            """
            @PersistedModel
            final class Settings {
                var a = 0, b = 0
                var c = 0 {
                    didSet { print(c) }
                }
            }
            """,
            expandedSource: """
            final class Settings {
                var a = 0, b = 0
                var c = 0 {
                    didSet { print(c) }
                }

            \(plumbing("Settings", coding: emptyFinalCoding("Settings")))
            }

            \(conformances("Settings"))
            """,
            diagnostics: [
                DiagnosticSpec(message: "only one property per 'var' is persisted; declare each property with its own 'var', or mark them @PersistedIgnored", line: 3, column: 5, severity: .warning),
                DiagnosticSpec(message: "a property with 'willSet' or 'didSet' is not persisted; observe the model with withObservationTracking instead, or mark it @PersistedIgnored", line: 4, column: 5, severity: .warning),
            ])
    }
}
