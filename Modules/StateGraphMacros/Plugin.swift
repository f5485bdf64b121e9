import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plug-in that provides StateGraph's macros.
@main
struct StateGraphMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        GraphStoredMacro.self,
        GraphComputedMacro.self,
        GraphIgnoredMacro.self,
    ]
}
