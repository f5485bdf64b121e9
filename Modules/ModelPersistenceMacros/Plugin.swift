import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plug-in that provides ModelPersistence's macros.
@main
struct ModelPersistenceMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        PersistedModelMacro.self,
        PersistedPropertyMacro.self,
        MarkerMacro.self,
        StorageNameMacro.self,
        CodingKeyEnumMacro.self,
        ObservedIgnoredMacro.self,
    ]
}
