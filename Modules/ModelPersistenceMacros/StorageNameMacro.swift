import MacroSupport
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@StorageName`: expands to nothing, and checks that it marks what DocumentData allows, a static
/// constant naming the document (`@StorageName static let storageName = "Settings"`).
///
/// On anything else it is an error, with a fix-it that makes the declaration `static let`. Without
/// it, `@StorageName var storeName = "Default"` in a model was a persisted property like any other:
/// a stored key in the file, and the document kept the class's name. `@PersistedModel` reads the name
/// (and checks the literal); this macro checks the declaration's shape, in a model or not.
public struct StorageNameMacro: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: PersistedModelDiagnostic.storageNameNotStaticConstant))
            return []
        }
        guard !variable.isStatic || !variable.isLet else { return [] }
        var fixed = variable
        if !variable.isStatic {
            fixed.modifiers.append(DeclModifierSyntax(name: .keyword(.static, trailingTrivia: .space)))
        }
        fixed.bindingSpecifier = .keyword(.let, leadingTrivia: variable.bindingSpecifier.leadingTrivia,
                                          trailingTrivia: variable.bindingSpecifier.trailingTrivia)
        let fixIt = FixIt(message: PersistedModelFixIt(message: "make it 'static let'"),
                          changes: [.replace(oldNode: Syntax(variable), newNode: Syntax(fixed))])
        context.diagnose(Diagnostic(node: variable.bindingSpecifier, message: PersistedModelDiagnostic.storageNameNotStaticConstant,
                                    fixIts: [fixIt]))
        return []
    }
}
