import SwiftSyntaxMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing
import StateGraphMacros

/// The macros under test, by the names the library declares them with.
let graphMacros: [String: MacroSpec] = [
    "GraphStored": MacroSpec(type: GraphStoredMacro.self),
    "GraphComputed": MacroSpec(type: GraphComputedMacro.self),
    "GraphIgnored": MacroSpec(type: GraphIgnoredMacro.self),
]

/// `assertMacroExpansion` reporting through Swift Testing.
func expectExpansion(_ source: String, expandedSource: String, diagnostics: [DiagnosticSpec] = [],
                     fixedSource: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
    assertMacroExpansion(source, expandedSource: expandedSource, diagnostics: diagnostics,
                         macroSpecs: graphMacros, applyFixIts: nil,
                         fixedSource: fixedSource, indentationWidth: .spaces(4),
                         failureHandler: { Issue.record(Comment(rawValue: $0.message), sourceLocation: sourceLocation) })
}
