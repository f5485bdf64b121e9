import MacroSupport
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// What the graph macros need to know about the property they are attached to.
struct PropertyShape {
    let variable: VariableDeclSyntax
    let name: String
    let type: TypeSyntax
    let initializer: ExprSyntax?
    /// The access modifier for the generated `$name` node (the setter's, when restricted), or "".
    let nodeAccess: String
    /// The property's `willSet` and `didSet` observers, folded into the generated setter.
    var willSet: AccessorDeclSyntax?
    var didSet: AccessorDeclSyntax?

    /// Whether the property is `static` (its node is a `static let`, and there is no `init` accessor;
    /// `class` is refused before a shape is made).
    var isStatic: Bool { variable.isStatic }

    /// Whether the type is spelled as an optional (`T?`, `T!`, `Optional<T>`).
    var isOptional: Bool { type.isOptional }

    /// The node's value type: the property's, except that an implicitly unwrapped optional `T!` keeps a
    /// `T?` (a generic argument cannot be `T!`).
    var nodeType: TypeSyntax {
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return TypeSyntax(OptionalTypeSyntax(wrappedType: unwrapped.wrappedType.trimmed))
        }
        return type
    }

    /// Reads `declaration`, or emits a diagnostic and returns `nil`.
    static func read(_ declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext,
                     diagnose: Bool) -> PropertyShape? {
        func fail(_ message: GraphMacroDiagnostic, at node: some SyntaxProtocol) -> PropertyShape? {
            if diagnose { context.diagnose(Diagnostic(node: Syntax(node), message: message)) }
            return nil
        }
        guard let variable = declaration.as(VariableDeclSyntax.self) else {
            return fail(.notAVariable, at: declaration)
        }
        if variable.isLet {
            let fixIt = FixIt(message: GraphMacroFixIt(message: "change 'let' to 'var'"), changes: [
                .replace(oldNode: Syntax(variable.bindingSpecifier),
                         newNode: Syntax(TokenSyntax.keyword(.var, trailingTrivia: .space))),
            ])
            if diagnose {
                context.diagnose(Diagnostic(node: Syntax(variable.bindingSpecifier),
                                            message: GraphMacroDiagnostic.letProperty, fixIts: [fixIt]))
            }
            return nil
        }
        if variable.hasModifier(.class) {
            return fail(.staticProperty, at: variable)
        }
        if let modifier = variable.modifier(.weak, .unowned) {
            return fail(.weakOrUnowned, at: modifier)
        }
        if let modifier = variable.modifier(.lazy) {
            return fail(.lazyProperty, at: modifier)
        }
        guard let identifier = variable.singleIdentifier, let binding = variable.bindings.first else {
            return fail(.multipleBindings, at: variable)
        }
        if let accessors = binding.accessorBlock {
            // Observers are folded into the setter; `get`, `set` and `init` are what the macro itself
            // generated, seen again when the compiler expands the other role, and come with observers
            // only then. Anything else is the user's own accessor.
            let generated: [Keyword] = [.willSet, .didSet, .get, .set, .`init`]
            guard case .accessors(let list) = accessors.accessors,
                  list.allSatisfy({ accessor in generated.contains { accessor.accessorSpecifier.tokenKind == .keyword($0) } }),
                  variable.hasObservers || !list.contains(where: { [.keyword(.get), .keyword(.set)].contains($0.accessorSpecifier.tokenKind) })
            else {
                return fail(.hasAccessors, at: accessors)
            }
        }
        guard let type = binding.typeAnnotation?.type.trimmed else {
            return fail(.missingType, at: binding)
        }
        // The node's access is the setter's level when it is restricted (`private(set)`), since the
        // node can set the value, else the property's.
        return PropertyShape(variable: variable, name: identifier.identifier.trimmed.text, type: type,
                             initializer: variable.initialValue?.trimmed,
                             nodeAccess: variable.setterAccessPrefix,
                             willSet: variable.accessor(.willSet), didSet: variable.accessor(.didSet))
    }
}

/// Where a graph node property is declared, which decides what can hold its node and what can set it.
enum PropertyPlacement {
    /// An instance property of a class or an actor: its initializers can assign it.
    case referenceInstance
    /// An instance property of a struct: its initializers can assign it, and its setter is
    /// `nonmutating` (the node is a reference, so setting the property does not change the struct).
    case structInstance
    /// A `static` or a top-level property: no initializer can assign it.
    case global
    /// An instance property of an enum, an extension or a protocol, none of which can hold a stored
    /// property for the node.
    case noStorage

    init(of shape: PropertyShape, in context: some MacroExpansionContext) {
        if shape.isStatic {
            self = .global
            return
        }
        switch context.lexicalContext.first {
        case let holder? where holder.is(ClassDeclSyntax.self) || holder.is(ActorDeclSyntax.self):
            self = .referenceInstance
        case let holder? where holder.is(StructDeclSyntax.self):
            self = .structInstance
        case let holder? where holder.is(EnumDeclSyntax.self) || holder.is(ExtensionDeclSyntax.self)
            || holder.is(ProtocolDeclSyntax.self):
            self = .noStorage
        default:
            self = .global
        }
    }
}
