import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@GraphComputed`: turns `var name: T` into a getter over a generated computed node `$name`, which the
/// type's `init` assigns (`self.$name = .init { ... }`).
public struct GraphComputedMacro {}

extension GraphComputedMacro: AccessorMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        guard let shape = PropertyShape.read(declaration, in: context, diagnose: false),
              shape.initializer == nil, isInstance(shape, in: context) else { return [] }
        return [
            """
            get {
                return $\(raw: shape.name).wrappedValue
            }
            """,
        ]
    }
}

extension GraphComputedMacro: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let shape = PropertyShape.read(declaration, in: context, diagnose: true) else { return [] }
        if let initializer = shape.variable.bindings.first?.initializer {
            let fixIt = FixIt(message: GraphMacroFixIt(message: "remove the initial value"), changes: [
                .replace(oldNode: Syntax(initializer), newNode: Syntax(InitializerClauseSyntax(
                    equal: .equalToken(presence: .missing), value: MissingExprSyntax()))),
            ])
            context.diagnose(Diagnostic(node: Syntax(initializer), message: GraphMacroDiagnostic.computedHasValue,
                                        fixIts: [fixIt]))
            return []
        }
        guard isInstance(shape, in: context) else {
            context.diagnose(Diagnostic(node: Syntax(shape.variable), message: GraphMacroDiagnostic.computedNotInstance))
            return []
        }
        return [
            """
            @StateGraph.GraphIgnored \(raw: shape.nodeAccess)let $\(raw: shape.name): StateGraph.Computed<\(shape.nodeType)>
            """,
        ]
    }
}

extension GraphComputedMacro {
    /// Whether the property is an instance property of a class, a struct or an actor, whose initializer
    /// can give the node its rule (a static or top-level `let` needs its value on its declaration).
    static func isInstance(_ shape: PropertyShape, in context: some MacroExpansionContext) -> Bool {
        switch PropertyPlacement(of: shape, in: context) {
        case .referenceInstance, .structInstance: return true
        case .global, .noStorage: return false
        }
    }
}

/// `@GraphIgnored`: a marker that expands to nothing.
public struct GraphIgnoredMacro: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        []
    }
}
