import MacroTestSupport
import StateGraphMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros under test, by the names the library declares them with.
let graphMacros: [String: MacroSpec] = [
    "GraphStored": MacroSpec(type: GraphStoredMacro.self),
    "GraphComputed": MacroSpec(type: GraphComputedMacro.self),
    "GraphIgnored": MacroSpec(type: GraphIgnoredMacro.self),
]

/// `expectMacroExpansion` with StateGraph's macros.
func expectExpansion(_ source: String, expandedSource: String, diagnostics: [DiagnosticSpec] = [],
                     fixedSource: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
    expectMacroExpansion(source, expandedSource: expandedSource, diagnostics: diagnostics, fixedSource: fixedSource,
                         macroSpecs: graphMacros, sourceLocation: sourceLocation)
}
