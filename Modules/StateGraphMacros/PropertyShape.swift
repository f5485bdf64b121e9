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

    /// Whether the property is `static` (its node is a `static let`, and there is no `init` accessor).
    var isStatic: Bool { variable.modifiers.contains { $0.name.text == "static" } }

    /// Whether the type is spelled as an optional (`T?`, `T!`, `Optional<T>`).
    var isOptional: Bool {
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let named = type.as(IdentifierTypeSyntax.self), named.name.text == "Optional" { return true }
        if let member = type.as(MemberTypeSyntax.self), member.name.text == "Optional" { return true }
        return false
    }

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
        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
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
        if variable.modifiers.contains(where: { $0.name.text == "class" }) {
            return fail(.staticProperty, at: variable)
        }
        if let modifier = variable.modifiers.first(where: { ["weak", "unowned"].contains($0.name.text) }) {
            return fail(.weakOrUnowned, at: modifier)
        }
        if let modifier = variable.modifiers.first(where: { $0.name.text == "lazy" }) {
            return fail(.lazyProperty, at: modifier)
        }
        guard variable.bindings.count == 1, let binding = variable.bindings.first,
              let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
            return fail(.multipleBindings, at: variable)
        }
        var observers: (willSet: AccessorDeclSyntax?, didSet: AccessorDeclSyntax?) = (nil, nil)
        if let accessors = binding.accessorBlock {
            switch accessors.accessors {
            case .getter:
                return fail(.hasAccessors, at: accessors)
            case .accessors(let list):
                for accessor in list {
                    switch accessor.accessorSpecifier.text {
                    case "willSet": observers.willSet = accessor
                    case "didSet": observers.didSet = accessor
                    // What the macro itself generated, seen again when the compiler expands the other role.
                    case "get", "set", "init": break
                    default: return fail(.hasAccessors, at: accessors)
                    }
                }
                if list.contains(where: { ["get", "set"].contains($0.accessorSpecifier.text) }) && observers == (nil, nil) {
                    return fail(.hasAccessors, at: accessors)
                }
            }
        }
        guard let type = binding.typeAnnotation?.type.trimmed else {
            return fail(.missingType, at: binding)
        }
        return PropertyShape(variable: variable, name: identifier.identifier.trimmedDescription, type: type,
                             initializer: binding.initializer?.value.trimmed,
                             nodeAccess: nodeAccess(of: variable.modifiers),
                             willSet: observers.willSet, didSet: observers.didSet)
    }

    /// The generated node's access: the setter's level when it is restricted (`private(set)`), since the
    /// node can set the value, else the property's.
    private static func nodeAccess(of modifiers: DeclModifierListSyntax) -> String {
        let levels = ["open", "public", "package", "internal", "fileprivate", "private"]
        var access = ""
        for modifier in modifiers where levels.contains(modifier.name.text) {
            let level = modifier.name.text == "open" ? "public" : modifier.name.text
            if modifier.detail?.detail.text == "set" { return level + " " }
            access = level + " "
        }
        return access
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
