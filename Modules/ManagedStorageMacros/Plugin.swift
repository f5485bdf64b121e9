import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plug-in that provides ManagedStorage's macros.
@main
struct ManagedStorageMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        StorageEntityMacro.self,
        StoragePropertyMacro.self,
        StorageMarkerMacro.self,
    ]
}
