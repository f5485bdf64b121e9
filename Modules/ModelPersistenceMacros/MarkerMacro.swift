import SwiftSyntax
import SwiftSyntaxMacros

/// `@PersistedIgnored`, `@PersistedIgnore` and `@PreviousKeys`: markers that expand to
/// nothing; `@PersistedModel` reads them from the syntax.
public struct MarkerMacro: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        []
    }
}
