import MacroSupport
import SwiftSyntax
import SwiftSyntaxMacros

/// `@ModelCodingKey` and `@Migration`: markers on a nested `CodingKey` enum that expand to nothing.
/// `@PersistedModel` reads the enum (the file's keys, or earlier keys to migrate from); this macro
/// checks the enum's shape where it is written.
public struct CodingKeyEnumMacro: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        let macro = node.unqualifiedName ?? "ModelCodingKey"
        guard let enumDecl = declaration.as(EnumDeclSyntax.self) else {
            context.diagnose(.init(node: node, message: CodingKeyEnumDiagnostic.notAnEnum(macro: macro)))
            return []
        }
        for problem in CodingKeyEnum.problems(enumDecl, macro: macro) { context.diagnose(problem) }
        return []
    }
}
