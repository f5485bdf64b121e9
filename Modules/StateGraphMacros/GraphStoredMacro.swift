import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@GraphStored`: turns `var name: T = value` into accessors over a generated stored node `$name`.
///
/// In memory (no argument, or `backed: .memory`) the node is `Stored(name:wrappedValue:)` and an
/// `init` accessor lets an initializer assign the property. With any other backing the node is
/// `Stored(name:backing:defaultValue:)` and the initial value is the default.
public struct GraphStoredMacro {
    /// The `backed:` argument's expression, or `nil` for memory.
    static func backing(of attribute: AttributeSyntax) -> ExprSyntax? {
        guard case .argumentList(let arguments)? = attribute.arguments,
              let argument = arguments.first(where: { $0.label?.text == "backed" }) else { return nil }
        let expression = argument.expression.trimmed
        if let member = expression.as(MemberAccessExprSyntax.self), member.base == nil,
           member.declName.baseName.text == "memory" {
            return nil
        }
        return expression
    }
}

extension GraphStoredMacro: AccessorMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        guard let shape = PropertyShape.read(declaration, in: context, diagnose: false),
              shape.initializer != nil || shape.isOptional else { return [] }
        let name = shape.name
        var accessors: [AccessorDeclSyntax] = []
        // An initializer can assign an instance property of a type; a static or top-level one has none.
        let inType = context.lexicalContext.first.map { $0.is(ClassDeclSyntax.self) || $0.is(StructDeclSyntax.self) || $0.is(ActorDeclSyntax.self) } ?? false
        if backing(of: node) == nil, inType, !shape.isStatic {
            accessors.append(
                """
                @storageRestrictions(accesses: $\(raw: name))
                init(initialValue) {
                    $\(raw: name).wrappedValue = initialValue
                }
                """)
        }
        accessors.append(
            """
            get {
                return $\(raw: name).wrappedValue
            }
            """)
        accessors.append(setter(shape))
        return accessors
    }
}

extension GraphStoredMacro {
    /// The setter: the node's write, with the property's `willSet` before it (its parameter, or
    /// `newValue`, bound to the value set) and its `didSet` after it (`oldValue`, or its parameter,
    /// bound to the value before), on every assignment, as Swift runs observers.
    static func setter(_ shape: PropertyShape) -> AccessorDeclSyntax {
        let name = shape.name
        let specifier = "set"
        guard shape.willSet != nil || shape.didSet != nil else {
            return """
                \(raw: specifier) {
                    $\(raw: name).wrappedValue = newValue
                }
                """
        }
        var body = ""
        if let willSet = shape.willSet, let statements = willSet.body?.statements {
            let parameter = willSet.parameters?.name.text ?? "newValue"
            body += "do {\nlet \(parameter): \(shape.type) = __graphStoredNewValue\n\(statements.trimmedDescription)\n}\n"
        }
        if let didSet = shape.didSet {
            let parameter = didSet.parameters?.name.text ?? "oldValue"
            body += "let \(parameter): \(shape.type) = $\(name).wrappedValue\n"
        }
        body += "$\(name).wrappedValue = __graphStoredNewValue\n"
        if let didSet = shape.didSet, let statements = didSet.body?.statements {
            body += "do {\n\(statements.trimmedDescription)\n}\n"
        }
        return AccessorDeclSyntax(stringLiteral: "\(specifier)(__graphStoredNewValue) {\n\(body)}")
    }
}

extension GraphStoredMacro: PeerMacro {
    public static func expansion(of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [DeclSyntax] {
        guard let shape = PropertyShape.read(declaration, in: context, diagnose: true) else { return [] }
        guard let initial = shape.initializer ?? (shape.isOptional ? ExprSyntax("nil") : nil) else {
            context.diagnose(Diagnostic(node: Syntax(shape.variable), message: GraphMacroDiagnostic.storedNeedsValue))
            return []
        }
        let name = shape.name
        let creation: String
        if let backing = backing(of: node) {
            creation = ".init(name: \"\(name)\", backing: \(backing.trimmedDescription), defaultValue: \(initial.trimmedDescription))"
        } else {
            creation = ".init(name: \"\(name)\", wrappedValue: \(initial.trimmedDescription))"
        }
        return [
            """
            @StateGraph.GraphIgnored \(raw: shape.nodeAccess)\(raw: shape.isStatic ? "static " : "")let $\(raw: name): StateGraph.Stored<\(shape.type)> = \(raw: creation)
            """,
        ]
    }
}
