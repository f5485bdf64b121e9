import SwiftSyntax

/// What a `var` or `let` declares, read from its first binding.
///
/// `var a, b: Int` has two bindings; the properties below describe the first (`a`), and
/// `singleIdentifier` tells a declaration of one name from the rest.
extension VariableDeclSyntax {
    /// Whether the declaration is a `let`.
    package var isLet: Bool { bindingSpecifier.tokenKind == .keyword(.let) }

    /// Whether the declaration is `lazy`.
    package var isLazy: Bool { hasModifier(.lazy) }

    /// The identifier this declaration binds, if it binds exactly one (not `var a, b: Int`, nor a
    /// tuple pattern `var (a, b) = (1, 2)`).
    package var singleIdentifier: IdentifierPatternSyntax? {
        guard bindings.count == 1, let binding = bindings.first else { return nil }
        return binding.pattern.as(IdentifierPatternSyntax.self)
    }

    /// The name this declaration binds, if it binds exactly one, as written (`` `default` `` keeps its backticks).
    package var singleName: String? {
        singleIdentifier?.identifier.trimmed.text
    }

    /// The type written for the first binding (`Int` in `var count: Int = 0`), if any.
    package var declaredType: TypeSyntax? {
        bindings.first?.typeAnnotation?.type
    }

    /// The first binding's initial value (`0` in `var count: Int = 0`), if any.
    package var initialValue: ExprSyntax? {
        bindings.first?.initializer?.value
    }

    /// Whether the first binding has an initial value.
    package var hasInitializer: Bool {
        bindings.first?.initializer != nil
    }
}
