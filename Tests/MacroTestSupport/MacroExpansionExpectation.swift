import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Expands `source` with `macroSpecs` and records a Swift Testing issue, at the caller, for every way the
/// result differs from what is expected: the full expanded text, the diagnostics (message, line, column,
/// severity, fix-its) and, when given, the source after applying every fix-it.
///
/// This is swift-syntax's `assertMacroExpansion` (from `SwiftSyntaxMacrosGenericTestSupport`, which
/// does not depend on XCTest) with a failure handler that reports through Swift Testing, and the
/// package's indentation (four spaces). Each macro test target wraps it once with its own macros:
///
/// ```swift
/// let graphMacros: [String: MacroSpec] = ["GraphStored": MacroSpec(type: GraphStoredMacro.self)]
///
/// func expectExpansion(_ source: String, expandedSource: String, diagnostics: [DiagnosticSpec] = [],
///                      fixedSource: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
///     expectMacroExpansion(source, expandedSource: expandedSource, diagnostics: diagnostics,
///                          fixedSource: fixedSource, macroSpecs: graphMacros, sourceLocation: sourceLocation)
/// }
/// ```
///
/// - Parameters:
///   - source: The source the macros are attached to, as a user writes it.
///   - expandedSource: The whole source after expansion, as swift-syntax formats it.
///   - diagnostics: Every diagnostic the expansion emits, in order; none by default.
///   - fixedSource: The source after applying all fix-its, or `nil` not to check it.
///   - macroSpecs: The macros under test by the names their library declares them with, and the
///     conformances the compiler reports as missing for each extension macro.
///   - sourceLocation: Where to report a difference: the caller's test.
public func expectMacroExpansion(_ source: String, expandedSource: String, diagnostics: [DiagnosticSpec] = [],
                                 fixedSource: String? = nil, macroSpecs: [String: MacroSpec],
                                 sourceLocation: SourceLocation = #_sourceLocation) {
    assertMacroExpansion(source, expandedSource: expandedSource, diagnostics: diagnostics,
                         macroSpecs: macroSpecs, applyFixIts: nil,
                         fixedSource: fixedSource, indentationWidth: .spaces(4),
                         failureHandler: { Issue.record(Comment(rawValue: $0.message), sourceLocation: sourceLocation) })
}
