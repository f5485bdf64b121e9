import MacroTestSupport
import ModelPersistenceMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros under test, by the names the library declares them with.
let persistenceMacros: [String: MacroSpec] = [
    "PersistedModel": MacroSpec(type: PersistedModelMacro.self, conformances: ["PersistedModel", "Observable"]),
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
    "PersistedIgnored": MacroSpec(type: MarkerMacro.self),
    "PersistedIgnore": MacroSpec(type: MarkerMacro.self),
    "StorageName": MacroSpec(type: StorageNameMacro.self),
    "PreviousKeys": MacroSpec(type: MarkerMacro.self),
    "_PersistedObserved": MacroSpec(type: ObservedIgnoredMacro.self),
    "_PersistedBacking": MacroSpec(type: MarkerMacro.self),
    "ModelCodingKey": MacroSpec(type: CodingKeyEnumMacro.self),
    "Migration": MacroSpec(type: CodingKeyEnumMacro.self),
]

/// The same macros where the class already conforms to `PersistedModel` and `Observable`, as a subclass
/// of a persisted model does: the compiler then passes no missing conformances.
let inheritedConformances: [String: MacroSpec] = persistenceMacros.merging(
    ["PersistedModel": MacroSpec(type: PersistedModelMacro.self, conformances: [])]) { $1 }

/// `expectMacroExpansion` with ModelPersistence's macros.
///
/// `macroSpecs` says which conformances the compiler reports as missing: a subclass of a persisted model
/// already has both, so its test passes `inheritedConformances`.
func expectExpansion(_ source: String, expandedSource: String, diagnostics: [DiagnosticSpec] = [],
                     fixedSource: String? = nil, macroSpecs: [String: MacroSpec] = persistenceMacros,
                     sourceLocation: SourceLocation = #_sourceLocation) {
    expectMacroExpansion(source, expandedSource: expandedSource, diagnostics: diagnostics, fixedSource: fixedSource,
                         macroSpecs: macroSpecs, sourceLocation: sourceLocation)
}

/// The members `@PersistedModel` adds to `type`, as it prints them (indented one level), for expected sources.
///
/// `coding` are the `Codable` members that follow (see `encoding` and `decoding`).
func plumbing(_ type: String, documentName: String? = nil, fields: [String] = [], coding: [String] = []) -> String {
    let fieldList = fields.isEmpty ? "[]" : "[\n" + fields.map { "            " + $0 }.joined(separator: ",\n") + "\n        ]"
    let fieldsBody = "\n        \(fieldList)\n    "
    return """
        public typealias _PersistedRoot = \(type)

        public nonisolated final var _$persistedRoot: \(type) {
            self
        }

        public static let _$persistedDocumentName: String = "\(documentName ?? type)"

        public static var _$persistedFields: [ModelPersistence.PersistedField<\(type)>] {\(fieldsBody)}

        public let _$persistence = ModelPersistence.PersistenceContext<\(type)>()

        private let _$observationRegistrar = Observation.ObservationRegistrar()

        internal nonisolated func access<Member>(keyPath: KeyPath<\(type), Member>) {
            _$observationRegistrar.access(self, keyPath: keyPath)
        }

        public nonisolated func withMutation<Member, T>(keyPath: KeyPath<\(type), Member>, _ mutation: () throws -> T) rethrows -> T {
            try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, mutation)
        }
    """ + coding.map { "\n\n" + $0 }.joined()
}

/// The accessors `@_PersistedProperty` gives the property `name`, indented for a member of a class.
/// In a non-generic class the getter hands the registrar the cached key path (`cached`).
/// `key` is the file's key the setter reports, when it is not the name (`@ModelCodingKey`).
func accessors(_ name: String, cached: Bool = true, key: String? = nil) -> String {
    let keyPath = cached ? "Self._$keyPath_\(name)" : "\\.\(name)"
    return
    """
            @storageRestrictions(initializes: _\(name))
            init(initialValue) {
                _\(name) = initialValue
            }
            get {
                _$persistence.willRead(self)
                access(keyPath: \(keyPath))
                return _\(name)
            }
            set {
                _$persistence.willRead(self)
                withMutation(keyPath: \\.\(name)) {
                    _\(name) = newValue
                }
                _$persistence.didWrite(self, key: "\(key ?? name)")
            }
    """
}

/// The conformance extension `@PersistedModel` adds.
func conformances(_ type: String) -> String {
    """
    extension \(type): ModelPersistence.PersistedModel, Observation.Observable {
    }
    """
}

/// The `encode(to:)` `@PersistedModel` writes, for `(property, key)` pairs in declaration order.
func encoding(_ fields: [(String, String)]) -> String {
    if fields.isEmpty {
        return """
            public func encode(to encoder: any Encoder) throws {
                _ = encoder.container(keyedBy: ModelPersistence.PersistedCodingKey.self)
            }
        """
    }
    let lines = fields.map { "        try container._encodePersisted(self.\($0.0), forKey: \"\($0.1)\")" }.joined(separator: "\n")
    return """
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: ModelPersistence.PersistedCodingKey.self)
    \(lines)
        }
    """
}

/// The `init(from:)`, `default` and `loadDefault()` `@PersistedModel` writes for a final class `type`,
/// with the body's lines after the container, and the `init()` Swift would have given the class.
/// (`required` in a final class only.)
func decoding(_ type: String, _ lines: [String], implicitInit: Bool = false, isFinal: Bool = true) -> [String] {
    let container = lines.isEmpty
        ? "        _ = try decoder.container(keyedBy: ModelPersistence.PersistedCodingKey.self)"
        : "        let container = try decoder.container(keyedBy: ModelPersistence.PersistedCodingKey.self)"
    let body = ([container] + lines.map { "        " + $0 }).joined(separator: "\n")
    var members = [
        """
            public \(isFinal ? "required " : "")init(from decoder: any Decoder) throws {
        \(body)
            }
        """,
        """
            public static var `default`: \(type) {
                ModelPersistence.PersistedModelDefault.instance(of: \(type).self) {
                    try \(type)(from: $0)
                }
            }
        """,
        """
            public static func loadDefault() throws(ModelPersistence.PersistenceError) -> \(type) {
                try ModelPersistence.PersistedModelDefault.load(\(type).self) {
                    try \(type)(from: $0)
                }
            }
        """,
    ]
    if implicitInit {
        members.append("""
            public init() {
            }
        """)
    }
    return members
}

/// An ignored `var` as `@PersistedModel` leaves it: observable, over a backing `_name`.
func observedIgnored(_ name: String, _ declaration: String, backing: String) -> String {
    """
        \(declaration) {
            @storageRestrictions(initializes: _\(name))
            init(initialValue) {
                _\(name) = initialValue
            }
            get {
                access(keyPath: \\.\(name))
                return _\(name)
            }
            set {
                withMutation(keyPath: \\.\(name)) {
                    _\(name) = newValue
                }
            }
        }

        @ModelPersistence._PersistedBacking private var _\(name)\(backing)
    """
}

/// The `Codable` members of a final class with no persisted property and an `init()` of Swift's.
func emptyFinalCoding(_ type: String) -> [String] {
    [encoding([])] + decoding(type, [], implicitInit: true)
}
