import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@ModelCodingKey` and `@Migration` (DocumentData's): the file's keys and the old ones, and what is
/// wrong with an enum that cannot give them.
@Suite struct CodingKeyExpansionTests {
    @Test func codingKeysAndMigrationGiveTheKeys() {
        expectExpansion(
            """
            @PersistedModel
            final class Profile {
                var name: String = ""
                @ModelCodingKey
                enum Keys: String, CodingKey {
                    case name = "NAME"
                }
                @Migration
                enum Old: String, CodingKey {
                    case name = "n"
                }
            }
            """,
            expandedSource: """
            final class Profile {
                var name: String {
            \(accessors("name", key: "NAME"))
                }

                @ModelPersistence._PersistedBacking @exclusivity(unchecked) private var _name: String = ""

                private static let _$keyPath_name = \\Profile.name
                enum Keys: String, CodingKey {
                    case name = "NAME"
                }
                enum Old: String, CodingKey {
                    case name = "n"
                }

            \(plumbing("Profile", fields: [
                #"ModelPersistence.PersistedField(key: "NAME", previousKeys: ["n"], storage: \Profile._name, observed: \Profile.name)"#,
            ], coding: [encoding([("name", "NAME")])] + decoding("Profile", [
                #"try container._decodePersisted(into: &self._name, key: "NAME", previousKeys: ["n"])"#,
            ], implicitInit: true)))
            }

            \(conformances("Profile"))
            """)
    }

    @Test func notOnAnEnum() {
        expectExpansion(
            """
            final class Profile {
                @ModelCodingKey
                var name = ""
            }
            """,
            expandedSource: """
            final class Profile {
                var name = ""
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@ModelCodingKey can only be applied to an enum, e.g. @ModelCodingKey enum CodingKeys: String, CodingKey { case name = \"NAME\" }", line: 2, column: 5)])
    }

    @Test func notACodingKey() {
        expectExpansion(
            """
            final class Profile {
                @ModelCodingKey
                enum Keys: String {
                    case name = "NAME"
                }
            }
            """,
            expandedSource: """
            final class Profile {
                enum Keys: String {
                    case name = "NAME"
                }
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@ModelCodingKey needs an enum that conforms to CodingKey, e.g. enum CodingKeys: String, CodingKey", line: 3, column: 10)])
    }

    @Test func integerKeys() {
        expectExpansion(
            """
            final class Profile {
                @Migration
                enum Keys: Int, CodingKey {
                    case name = 1
                }
            }
            """,
            expandedSource: """
            final class Profile {
                enum Keys: Int, CodingKey {
                    case name = 1
                }
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@Migration needs String raw values, not Int: a property list's keys are strings (with Int raw values the file would use the cases' names)", line: 3, column: 16)])
    }

    @Test func duplicateKeys() {
        expectExpansion(
            """
            final class Profile {
                @ModelCodingKey
                enum Keys: String, CodingKey {
                    case name = "K"
                    case age = "K"
                }
            }
            """,
            expandedSource: """
            final class Profile {
                enum Keys: String, CodingKey {
                    case name = "K"
                    case age = "K"
                }
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@ModelCodingKey: the key \"K\" is already used by case 'name'; each property needs a key of its own", line: 5, column: 14)])
    }

    @Test func missingAndUnknownCases() {
        expectExpansion(
            """
            @PersistedModel
            final class Profile {
                var name: String = ""
                var age: Int = 0
                @ModelCodingKey
                enum Keys: String, CodingKey {
                    case name = "NAME"
                    case city = "CITY"
                }
                @Migration
                enum Old: String, CodingKey {
                    case town = "t"
                }
            }
            """,
            expandedSource: """
            final class Profile {
                var name: String {
            \(accessors("name", key: "NAME"))
                }

                @ModelPersistence._PersistedBacking @exclusivity(unchecked) private var _name: String = ""

                private static let _$keyPath_name = \\Profile.name
                var age: Int {
            \(accessors("age"))
                }

                @ModelPersistence._PersistedBacking @exclusivity(unchecked) private var _age: Int = 0

                private static let _$keyPath_age = \\Profile.age
                enum Keys: String, CodingKey {
                    case name = "NAME"
                    case city = "CITY"
                }
                enum Old: String, CodingKey {
                    case town = "t"
                }

            \(plumbing("Profile", fields: [
                #"ModelPersistence.PersistedField(key: "NAME", previousKeys: [], storage: \Profile._name, observed: \Profile.name)"#,
                #"ModelPersistence.PersistedField(key: "age", previousKeys: [], storage: \Profile._age, observed: \Profile.age)"#,
            ], coding: [encoding([("name", "NAME"), ("age", "age")])] + decoding("Profile", [
                #"try container._decodePersisted(into: &self._name, key: "NAME", previousKeys: [])"#,
                #"try container._decodePersisted(into: &self._age, key: "age", previousKeys: [])"#,
            ], implicitInit: true)))
            }

            \(conformances("Profile"))
            """,
            diagnostics: [
                DiagnosticSpec(message: "@ModelCodingKey: 'city' is not a persisted property of 'Profile'; each case names a persisted property (not a @PersistedIgnored one, nor @StorageName)", line: 8, column: 14),
                DiagnosticSpec(message: "the persisted property 'age' has no case in Keys; every persisted property needs one (add 'case age = \"age\"' to keep its key)", line: 4, column: 9),
                DiagnosticSpec(message: "@Migration: 'town' is not a persisted property of 'Profile'; each case names a persisted property (not a @PersistedIgnored one, nor @StorageName)", line: 12, column: 14),
            ])
    }
}
