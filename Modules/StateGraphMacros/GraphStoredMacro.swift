import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@GraphStored`: turns `var name: T = value` into accessors over a generated stored node `$name`.
///
/// In memory (no argument, or `backed: .memory`) the node is `Stored(name:wrappedValue:)`; with any
/// other backing it is a `StoredNode<T, UserDefaultsStorage<T>>` made by `init(name:backing:defaultValue:)`,
/// and the initial value is the default. What
/// makes the node, and whether an initializer can assign the property, depends on where the property
/// is declared (see `Plan`).
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

    /// What one property expands to; both roles of the macro read the same plan.
    struct Plan {
        /// How the property's `init` accessor treats the node, if it has one.
        enum InitAccessor {
            /// `accesses: $name`: the node is made with the declaration's value, the accessor sets it.
            case accesses
            /// `initializes: $name`: the accessor makes the node with the value assigned (or with the
            /// property's own initial value, which Swift passes to it when an initializer does not).
            case initializes
        }

        let shape: PropertyShape
        /// The node's creation expression on its declaration, or `nil` when the `init` accessor makes it.
        let creation: String?
        let initAccessor: InitAccessor?
        /// Whether the node is a `var`: a struct's property with an initial value, whose node Swift makes
        /// from that value at the start of every initializer, so one that assigns the property runs the
        /// `init` accessor a second time (a `let` could not be initialized twice).
        let nodeIsVariable: Bool
        /// Whether the setter is `nonmutating` (a struct's instance property).
        let nonmutatingSet: Bool

        /// The plan for `declaration`, or `nil` (with a diagnostic when `diagnose`) for a refused form.
        ///
        /// - A class's or an actor's property with an initial value (an optional's is `nil`) has a
        ///   node made with it and an `accesses:` init accessor; without one, an `initializes:` init
        ///   accessor makes the node from what the initializer assigns (or the initializer assigns
        ///   `$name` itself, to share another object's node).
        /// - A struct's property always has an `initializes:` init accessor, so the memberwise
        ///   initializer can take it (an `accesses:` one would need the node made before the
        ///   accessor runs, which the memberwise initializer cannot do), and a `nonmutating` setter.
        /// - A static or top-level property, and any suite-backed one, has its node made on its
        ///   declaration and no init accessor; it needs an initial value.
        static func make(_ node: AttributeSyntax, _ declaration: some DeclSyntaxProtocol,
                         in context: some MacroExpansionContext, diagnose: Bool) -> Plan? {
            guard let shape = PropertyShape.read(declaration, in: context, diagnose: diagnose) else { return nil }
            func fail(_ message: GraphMacroDiagnostic) -> Plan? {
                if diagnose { context.diagnose(Diagnostic(node: Syntax(shape.variable), message: message)) }
                return nil
            }
            let placement = PropertyPlacement(of: shape, in: context)
            if placement == .noStorage { return fail(.noStorage) }
            let initial = shape.initializer ?? (shape.isOptional ? ExprSyntax("nil") : nil)
            let nonmutatingSet = placement == .structInstance
            let name = shape.name
            if let backing = GraphStoredMacro.backing(of: node) {
                guard let initial else { return fail(.backedNeedsValue) }
                return Plan(shape: shape,
                            creation: ".init(name: \"\(name)\", backing: \(backing.trimmedDescription), defaultValue: \(initial.trimmedDescription))",
                            initAccessor: nil, nodeIsVariable: false, nonmutatingSet: nonmutatingSet)
            }
            let memory = initial.map { ".init(name: \"\(name)\", wrappedValue: \($0.trimmedDescription))" }
            switch placement {
            case .global:
                guard let memory else { return fail(.storedNeedsValue) }
                return Plan(shape: shape, creation: memory, initAccessor: nil, nodeIsVariable: false, nonmutatingSet: false)
            case .referenceInstance:
                return Plan(shape: shape, creation: memory, initAccessor: memory == nil ? .initializes : .accesses,
                            nodeIsVariable: false, nonmutatingSet: false)
            case .structInstance:
                return Plan(shape: shape, creation: nil, initAccessor: .initializes,
                            nodeIsVariable: initial != nil, nonmutatingSet: true)
            case .noStorage:
                return nil
            }
        }
    }
}

extension GraphStoredMacro: AccessorMacro {
    public static func expansion(of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
                                 in context: some MacroExpansionContext) throws -> [AccessorDeclSyntax] {
        guard let plan = Plan.make(node, declaration, in: context, diagnose: false) else { return [] }
        let name = plan.shape.name
        var accessors: [AccessorDeclSyntax] = []
        switch plan.initAccessor {
        case .accesses?:
            accessors.append(
                """
                @storageRestrictions(accesses: $\(raw: name))
                init(initialValue) {
                    $\(raw: name).wrappedValue = initialValue
                }
                """)
        case .initializes?:
            accessors.append(
                """
                @storageRestrictions(initializes: $\(raw: name))
                init(initialValue) {
                    $\(raw: name) = .init(name: "\(raw: name)", wrappedValue: initialValue)
                }
                """)
        case nil:
            break
        }
        // An implicitly unwrapped optional's getter returns the optional: Swift unwraps it where the
        // property is used as a `T`, and comparing it with `nil` does not trap.
        accessors.append(
            """
            get {
                return $\(raw: name).wrappedValue
            }
            """)
        accessors.append(setter(plan))
        return accessors
    }
}

extension GraphStoredMacro {
    /// The setter: the node's write, with the property's `willSet` before it (its parameter, or
    /// `newValue`, bound to the value set) and its `didSet` after it (`oldValue`, or its parameter,
    /// bound to the value before), on every assignment, as Swift runs observers.
    static func setter(_ plan: Plan) -> AccessorDeclSyntax {
        let shape = plan.shape
        let name = shape.name
        let specifier = plan.nonmutatingSet ? "nonmutating set" : "set"
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
        guard let plan = Plan.make(node, declaration, in: context, diagnose: true) else { return [] }
        let shape = plan.shape
        var modifiers = shape.nodeAccess
        if shape.isStatic { modifiers += "static " }
        let binding: String
        if plan.nodeIsVariable {
            // Only the type may replace the node (its initializers do, when they assign the property).
            if modifiers != "private " { modifiers += "private(set) " }
            binding = "var"
        } else {
            binding = "let"
        }
        let value = plan.creation.map { " = \($0)" } ?? ""
        // A suite-backed node's type names its storage, as swift-state-graph 0.25's `UserDefaultsStored`.
        let nodeType: TypeSyntax = GraphStoredMacro.backing(of: node) == nil
            ? "StateGraph.Stored<\(shape.nodeType)>"
            : "StateGraph.StoredNode<\(shape.nodeType), StateGraph.UserDefaultsStorage<\(shape.nodeType)>>"
        return [
            """
            @StateGraph.GraphIgnored \(raw: modifiers)\(raw: binding) $\(raw: shape.name): \(nodeType)\(raw: value)
            """,
        ]
    }
}
