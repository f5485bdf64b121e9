import SwiftSyntax

/// Modifier lookup on a declaration: `static`, `lazy`, `final`, `weak`, ….
extension WithModifiersSyntax {
    /// The first modifier that is one of `keywords`, for a diagnostic to point at.
    ///
    /// ```swift
    /// if let modifier = variable.modifier(.weak, .unowned) { … }
    /// ```
    package func modifier(_ keywords: Keyword...) -> DeclModifierSyntax? {
        modifiers.first { modifier in keywords.contains { modifier.name.tokenKind == .keyword($0) } }
    }

    /// Whether the declaration has the modifier `keyword` (`final`, `lazy`, …).
    package func hasModifier(_ keyword: Keyword) -> Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(keyword) }
    }

    /// Whether the declaration belongs to its type rather than to an instance: `static` or `class`.
    package var isStatic: Bool {
        hasModifier(.static) || hasModifier(.class)
    }
}
