import SwiftSyntax

/// Attribute lookup on a declaration (a `var`, a class, an enum, …).
///
/// A value typed only as `some DeclGroupSyntax` is not a `WithAttributesSyntax` to the compiler; ask its
/// `attributes` (`declaration.attributes.contains(attributeNamed: "Observable")`).
extension WithAttributesSyntax {
    /// The first attribute named `name`, with or without a module prefix (`@Name`, `@Module.Name`).
    ///
    /// ```swift
    /// if let attribute = variable.attribute(named: "Relationship"),
    ///    case .argumentList(let arguments)? = attribute.arguments { … }
    /// ```
    package func attribute(named name: String) -> AttributeSyntax? {
        attributes.attribute(named: name)
    }

    /// Whether the declaration carries an attribute named `name`, with or without a module prefix.
    package func hasAttribute(_ name: String) -> Bool {
        attributes.contains(attributeNamed: name)
    }
}
