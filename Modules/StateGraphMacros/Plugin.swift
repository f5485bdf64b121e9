import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that provides StateGraph's macros.
@main
struct StateGraphMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = []
}
