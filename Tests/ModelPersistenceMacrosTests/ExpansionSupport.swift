import SwiftSyntaxMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing
import ModelPersistenceMacros

/// The macros under test, by the names the library declares them with.
let persistenceMacros: [String: MacroSpec] = [
    "PersistedModel": MacroSpec(type: PersistedModelMacro.self, conformances: ["PersistedModel", "Observable"]),
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
    "PersistedIgnored": MacroSpec(type: MarkerMacro.self),
    "PersistedIgnore": MacroSpec(type: MarkerMacro.self),
    "StorageName": MacroSpec(type: StorageNameMacro.self),
    "PreviousKeys": MacroSpec(type: MarkerMacro.self),
]

/// The same macros where the class already conforms to `PersistedModel` and `Observable`, as a subclass
/// of a persisted model does: the compiler then passes no missing conformances.
let inheritedConformances: [String: MacroSpec] = persistenceMacros.merging(
    ["PersistedModel": MacroSpec(type: PersistedModelMacro.self, conformances: [])]) { $1 }

/// `assertMacroExpansion` reporting through Swift Testing.
///
/// `macroSpecs` says which conformances the compiler reports as missing: a subclass of a persisted model
/// already has both, so its test passes `inheritedConformances`.
func expectExpansion(_ source: String, expandedSource: String, diagnostics: [DiagnosticSpec] = [],
                     fixedSource: String? = nil, macroSpecs: [String: MacroSpec] = persistenceMacros,
                     sourceLocation: SourceLocation = #_sourceLocation) {
    assertMacroExpansion(source, expandedSource: expandedSource, diagnostics: diagnostics,
                         macroSpecs: macroSpecs, applyFixIts: nil,
                         fixedSource: fixedSource, indentationWidth: .spaces(4),
                         failureHandler: { Issue.record(Comment(rawValue: $0.message), sourceLocation: sourceLocation) })
}

/// The members `@PersistedModel` adds to `type`, as it prints them (indented one level), for expected sources.
func plumbing(_ type: String, documentName: String? = nil, fields: [String] = []) -> String {
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
    """
}

/// The accessors `@_PersistedProperty` gives the property `name`, indented for a member of a class.
/// In a non-generic class the getter hands the registrar the cached key path (`cached`).
func accessors(_ name: String, cached: Bool = true) -> String {
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
                _$persistence.didWrite(self, key: "\(name)")
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
