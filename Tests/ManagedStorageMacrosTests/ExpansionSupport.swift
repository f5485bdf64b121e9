import MacroTestSupport
import ManagedStorageMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros under test, by the names ManagedStorage declares them with.
let storageMacros: [String: MacroSpec] = [
    "StorageEntity": MacroSpec(type: StorageEntityMacro.self, conformances: ["StorageEntity", "Sendable"]),
    "_StorageProperty": MacroSpec(type: StoragePropertyMacro.self),
    "Relationship": MacroSpec(type: StorageMarkerMacro.self),
    "Transient": MacroSpec(type: StorageMarkerMacro.self),
    "Attribute": MacroSpec(type: StorageMarkerMacro.self),
]

/// `expectMacroExpansion` with ManagedStorage's macros.
func expectExpansion(_ source: String, expandedSource: String, diagnostics: [DiagnosticSpec] = [],
                     fixedSource: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
    expectMacroExpansion(source, expandedSource: expandedSource, diagnostics: diagnostics, fixedSource: fixedSource,
                         macroSpecs: storageMacros, sourceLocation: sourceLocation)
}
